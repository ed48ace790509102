import { AGGREGATE_FUNCTIONS } from './aggregate.functions.js';
import { CONDITIONAL_FUNCTIONS } from './conditional.functions.js';
import { CONVERSION_FUNCTIONS } from './conversion.functions.js';
import { DATETIME_FUNCTIONS } from './datetime.functions.js';
import { assertOnly, chainOf, children, child, isKind, required, text } from '../parse/hogql.ast.js';
import { asBoolean } from '../compile/hogql.coerce.js';
import type { Clause, Env } from '../compile/hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { compileExpr } from '../compile/hogql.expressions.js';
import type { Expr, HogQLNode } from '../hogql.types.js';
import { JSON_FUNCTIONS } from './json.functions.js';
import { MATH_FUNCTIONS } from './math.functions.js';
import { OPERATOR_FUNCTIONS } from './operator.functions.js';
import { STRING_FUNCTIONS } from './string.functions.js';

/** A call as a function's compiler sees it: arguments compiled, options read. */
export interface Call {
  name: string;
  args: Expr[];
  /** Parametric arguments: `quantile(0.9)(x)` has params [0.9]. */
  params: Expr[];
  distinct: boolean;
  /** `FILTER (WHERE ...)` of an aggregation. */
  filter: Expr | null;
  env: Env;
}

export interface FunctionDef {
  /** Fewest and most arguments (null: no most). */
  args: [number, number | null];
  /** Fewest and most parametric arguments, when the function takes them. */
  params?: [number, number];
  aggregate?: boolean;
  /** DISTINCT is meaningful (count, sum, avg, uniq). */
  distinct?: boolean;
  compile(call: Call): Expr;
}

export type FunctionTable = Record<string, FunctionDef>;

let table: FunctionTable | null = null;

/**
 * Every function a query may call, by its HogQL name; nothing else is emitted. Gathered on first
 * use: the families import the expression compiler, which imports this module, so the tables may
 * not exist yet while the modules load.
 */
function functions(): FunctionTable {
  table ??= {
    ...AGGREGATE_FUNCTIONS,
    ...CONDITIONAL_FUNCTIONS,
    ...CONVERSION_FUNCTIONS,
    ...DATETIME_FUNCTIONS,
    ...JSON_FUNCTIONS,
    ...MATH_FUNCTIONS,
    ...OPERATOR_FUNCTIONS,
    ...STRING_FUNCTIONS,
  };
  return table;
}

/**
 * Names HogQL (and SQL) take in any case: `COUNT()`, `Coalesce()`, and `NOT (x)`, which the parser
 * reads as a call. Others must be spelled as PostHog does.
 */
const ANY_CASE = new Map(
  ['count', 'sum', 'avg', 'min', 'max', 'coalesce', 'ifNull', 'nullIf', 'isNull', 'now', 'lower', 'upper', 'length', 'substring', 'trim', 'concat', 'abs', 'round', 'floor', 'ceil', 'greatest', 'least', 'if', 'today', 'not', 'and', 'or'].map(
    (name) => [name.toLowerCase(), name],
  ),
);

/** Clauses where an aggregation cannot stand. */
const NO_AGGREGATES: Partial<Record<Clause, string>> = { where: 'WHERE', join: 'a JOIN constraint', group_by: 'GROUP BY' };

export function lookupFunction(name: string): FunctionDef | undefined {
  const all = functions();
  if (Object.hasOwn(all, name)) return all[name];
  const canonical = ANY_CASE.get(name.toLowerCase());
  return canonical ? all[canonical] : undefined;
}

/** The name as the catalogue spells it (`count` for `COUNT`); the name itself where case counts. */
export function canonicalFunctionName(name: string): string {
  return Object.hasOwn(functions(), name) ? name : (ANY_CASE.get(name.toLowerCase()) ?? name);
}

export function callExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['name', 'args', 'params', 'distinct', 'filter_expr']);
  const name = text(node, 'name');
  const def = lookupFunction(name);
  if (!def) throw new HogQLError(`Unsupported function: ${name}`);
  const term = def.aggregate ? 'Aggregation' : 'Function';
  checkArity(term, name, children(node, 'args').length, def.args, 'argument');
  checkParams(term, name, node, def);
  if (def.aggregate) checkAggregationPlace(name, env);
  if (node.distinct === true && !def.distinct) throw new HogQLError(`${term} '${name}' does not take DISTINCT`);
  const inner: Env = { ...env, inAggregate: env.inAggregate || def.aggregate === true };
  const filterNode = child(node, 'filter_expr');
  if (filterNode && !def.aggregate) throw new HogQLError(`Only aggregations take FILTER (WHERE ...), not '${name}'`);
  const call: Call = {
    name,
    args: children(node, 'args').map((arg) => argumentExpr(arg, name, inner)),
    params: children(node, 'params').map((param) => compileExpr(param, inner)),
    distinct: node.distinct === true,
    filter: filterNode ? asBoolean(compileExpr(filterNode, inner), 'FILTER') : null,
    env,
  };
  const expr = def.compile(call);
  return def.aggregate ? { ...expr, aggregate: true } : expr;
}

/** An argument; `*` only as count(*)'s. */
function argumentExpr(arg: HogQLNode, name: string, env: Env): Expr {
  if (isKind(arg, 'Field') && chainOf(arg).length === 1 && chainOf(arg)[0] === '*') {
    if (name.toLowerCase() !== 'count') throw new HogQLError(`Cannot use '*' in ${name}()`);
    return { sql: '*', type: 'Unknown', nullable: false };
  }
  return compileExpr(arg, env);
}

/** PostHog's wording: "Function 'x' expects 1 argument, found 2". */
export function checkArity(term: string, name: string, count: number, [min, max]: [number, number | null], noun: string): void {
  const plural = (n: number): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
  if (min === max && count !== min) throw new HogQLError(`${term} '${name}' expects ${plural(min)}, found ${count}`);
  if (count < min) throw new HogQLError(`${term} '${name}' expects at least ${plural(min)}, found ${count}`);
  if (max !== null && count > max) throw new HogQLError(`${term} '${name}' expects at most ${plural(max)}, found ${count}`);
}

function checkParams(term: string, name: string, node: HogQLNode, def: FunctionDef): void {
  const given = node.params === null || node.params === undefined ? null : children(node, 'params').length;
  if (!def.params) {
    if (given !== null) throw new HogQLError(`${term} '${name}' does not take parameters`);
    return;
  }
  if (given === null) throw new HogQLError(`${term} '${name}' requires parameters in addition to arguments`);
  checkArity(term, name, given, def.params, 'parameter');
}

function checkAggregationPlace(name: string, env: Env): void {
  if (env.inAggregate) throw new HogQLError(`Aggregation '${name}' cannot be nested inside another aggregation.`);
  const place = NO_AGGREGATES[env.clause];
  if (place) throw new HogQLError(`Aggregation '${name}' is not allowed in ${place}.`);
}

/** Target types of `x::type` and `CAST(x AS type)`: each the conversion function of that name. */
export const CASTS: Record<string, string> = {
  int: 'toInt',
  integer: 'toInt',
  int64: 'toInt',
  bigint: 'toInt',
  float: 'toFloat',
  float64: 'toFloat',
  double: 'toFloat',
  string: 'toString',
  text: 'toString',
  varchar: 'toString',
  date: 'toDate',
  datetime: 'toDateTime',
  timestamp: 'toDateTime',
  uuid: 'toUUID',
  bool: 'toBool',
  boolean: 'toBool',
};

/** A type cast: only to the types above, through the same conversions as the functions. */
export function castExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['expr', 'type_name']);
  const target = text(node, 'type_name');
  const fn = Object.hasOwn(CASTS, target.toLowerCase()) ? CASTS[target.toLowerCase()] : undefined;
  if (!fn) throw new HogQLError(`Unsupported type cast: ${target}`);
  return callExpr({ node: 'Call', name: fn, args: [required(node, 'expr')] }, env);
}
