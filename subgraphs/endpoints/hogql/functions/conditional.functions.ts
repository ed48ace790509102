import { asBoolean, isNumeric, typed } from '../compile/hogql.coerce.js';
import { HogQLError } from '../hogql.errors.js';
import type { Call, FunctionTable } from './hogql.functions.js';
import type { Expr, ExprType } from '../hogql.types.js';
import { unify } from '../compile/hogql.unify.js';

/**
 * The one type of values that may each be the result (if() branches, coalesce() arguments): NULL
 * fits any, integers widen to floats; anything else must match, as ClickHouse wants a supertype.
 */
export function commonType(values: Expr[], what: string): Partial<Expr> & { type: ExprType } {
  const present = values.filter((value) => value.type !== 'Null' && value.type !== 'Unknown');
  const types = new Set(present.map((value) => value.type));
  const property = present.length > 0 && present.every((value) => value.property) ? true : undefined;
  if (types.size === 0) return { type: values.some((value) => value.type === 'Unknown') ? 'Unknown' : 'Null' };
  if (types.size === 1) return { type: present[0]!.type, property };
  if (present.every(isNumeric)) return { type: 'Float' };
  throw new HogQLError(`${what} cannot mix ${[...types].join(' and ')} values`);
}

function caseExpr(call: Call, whens: [Expr, Expr][], otherwise: Expr): Expr {
  const results = [...whens.map(([, then]) => then), otherwise];
  const { type, property } = commonType(results, call.name);
  const arms = whens.map(([test, then]) => `WHEN ${asBoolean(test, call.name).sql} THEN ${then.sql}`).join(' ');
  return typed(`(CASE ${arms} ELSE ${otherwise.sql} END)`, type, [...whens.flat(), otherwise], { property });
}

/** multiIf(c1, v1, c2, v2, ..., else): pairs then a default, which CASE WHEN also parses to. */
function multiIf(call: Call): Expr {
  if (call.args.length % 2 === 0) throw new HogQLError(`Function '${call.name}' expects an odd number of arguments: conditions with values, then a default`);
  const whens: [Expr, Expr][] = [];
  for (let index = 0; index + 1 < call.args.length; index += 2) whens.push([call.args[index]!, call.args[index + 1]!]);
  return caseExpr(call, whens, call.args[call.args.length - 1]!);
}

/** `CASE x WHEN a THEN ... ELSE ... END`, which the parser calls _caseWithExpression(x, a, ..., else). */
function caseWithExpression(call: Call): Expr {
  const [subject, ...rest] = call.args as [Expr, ...Expr[]];
  if (rest.length % 2 === 0) throw new HogQLError('CASE needs WHEN ... THEN pairs and an ELSE');
  const whens: [Expr, Expr][] = [];
  for (let index = 0; index + 1 < rest.length; index += 2) {
    const [l, r] = unify(subject, rest[index]!, call.env);
    whens.push([typed(`(${l.sql} = ${r.sql})`, 'Boolean', [l, r]), rest[index + 1]!]);
  }
  return caseExpr(call, whens, rest[rest.length - 1]!);
}

function coalesce(call: Call): Expr {
  const { type, property } = commonType(call.args, call.name);
  return typed(`COALESCE(${call.args.map((arg) => arg.sql).join(', ')})`, type, call.args, {
    nullable: call.args.every((arg) => arg.nullable),
    property,
  });
}

function nullIf(call: Call): Expr {
  const [l, r] = unify(call.args[0]!, call.args[1]!, call.env);
  return typed(`NULLIF(${l.sql}, ${r.sql})`, l.type, [l, r], { nullable: true, property: l.property });
}

function nullTest(call: Call, negated: boolean): Expr {
  const value = call.args[0]!;
  return typed(`(${value.sql} IS ${negated ? 'NOT ' : ''}NULL)`, 'Boolean', [], { nullable: false, aggregate: value.aggregate });
}

/** Conditionals and NULL handling (PostHog's conditional and nullability functions). */
export const CONDITIONAL_FUNCTIONS: FunctionTable = {
  if: { args: [3, 3], compile: (call) => caseExpr(call, [[call.args[0]!, call.args[1]!]], call.args[2]!) },
  multiIf: { args: [3, null], compile: multiIf },
  _caseWithExpression: { args: [4, null], compile: caseWithExpression },
  coalesce: { args: [1, null], compile: coalesce },
  ifNull: { args: [2, 2], compile: coalesce },
  nullIf: { args: [2, 2], compile: nullIf },
  isNull: { args: [1, 1], compile: (call) => nullTest(call, false) },
  isNotNull: { args: [1, 1], compile: (call) => nullTest(call, true) },
  assumeNotNull: { args: [1, 1], compile: (call) => call.args[0]! },
  toNullable: { args: [1, 1], compile: (call) => ({ ...call.args[0]!, nullable: true }) },
};
