import { commonType } from './conditional.functions.js';
import { asNumber, typed } from '../compile/hogql.coerce.js';
import type { Call, FunctionDef, FunctionTable } from './hogql.functions.js';
import type { Expr } from '../hogql.types.js';

function number(call: Call, index: number): Expr {
  return asNumber(call.args[index]!, call.name);
}

/** A function of a number, as a float; `guard` names the inputs it is defined for (NULL elsewhere, where PostgreSQL would fail). */
function unary(fn: string | ((float: string) => string), guard?: (sql: string) => string): FunctionDef {
  return {
    args: [1, 1],
    compile: (call) => {
      const value = number(call, 0);
      const float = `(${value.sql})::float8`;
      const sql = typeof fn === 'string' ? `${fn}(${float})` : fn(float);
      return typed(guard ? `(CASE WHEN ${guard(value.sql)} THEN ${sql} END)` : sql, 'Float', value, { nullable: value.nullable || guard !== undefined });
    },
  };
}

/**
 * round, floor and ceil, with an optional number of decimals. Integers stay integers; round()
 * rounds half to even on floats, as ClickHouse's does.
 */
function rounding(fn: 'round' | 'floor' | 'ceil'): FunctionDef {
  return {
    args: [1, 2],
    compile: (call) => {
      const value = number(call, 0);
      if (call.args.length === 1) return value.type === 'Integer' ? value : typed(`${fn}((${value.sql})::float8)`, 'Float', value);
      const scale = `power(10::float8, ${number(call, 1).sql})`;
      return typed(`(${fn}((${value.sql})::float8 * ${scale}) / ${scale})`, 'Float', call.args);
    },
  };
}

function power(call: Call): Expr {
  const [base, exponent] = [number(call, 0).sql, number(call, 1).sql];
  // PostgreSQL fails where ClickHouse answers inf or nan: 0 to a negative power, a negative base to a fraction.
  const defined = `NOT ((${base}) = 0 AND (${exponent}) < 0) AND NOT ((${base}) < 0 AND (${exponent}) <> trunc(${exponent}))`;
  return typed(`(CASE WHEN ${defined} THEN power((${base})::float8, (${exponent})::float8) END)`, 'Float', call.args, { nullable: true });
}

/** greatest/least: PostgreSQL skips NULL arguments where ClickHouse answers NULL. */
function extreme(fn: 'GREATEST' | 'LEAST'): FunctionDef {
  return {
    args: [2, null],
    compile: (call) => {
      const { type, property } = commonType(call.args, call.name);
      return typed(`${fn}(${call.args.map((arg) => arg.sql).join(', ')})`, type, call.args, { property });
    },
  };
}

function intDiv(call: Call): Expr {
  const [a, b] = [number(call, 0), number(call, 1)];
  const sql = a.type === 'Integer' && b.type === 'Integer' ? `(${a.sql} / NULLIF(${b.sql}, 0))` : `trunc((${a.sql})::float8 / NULLIF((${b.sql})::float8, 0))::bigint`;
  return typed(sql, 'Integer', [a, b], { nullable: true });
}

function abs(call: Call): Expr {
  const value = number(call, 0);
  return typed(`abs(${value.sql})`, value.type === 'Integer' ? 'Integer' : 'Float', value);
}

function sign(call: Call): Expr {
  const value = number(call, 0);
  return typed(`sign((${value.sql})::float8)::int`, 'Integer', value);
}

/** Mathematical functions (PostHog's functions/clickhouse/mathematical.py). */
export const MATH_FUNCTIONS: FunctionTable = {
  abs: { args: [1, 1], compile: abs },
  sign: { args: [1, 1], compile: sign },
  round: rounding('round'),
  floor: rounding('floor'),
  ceil: rounding('ceil'),
  ceiling: rounding('ceil'),
  sqrt: unary('sqrt', (sql) => `(${sql}) >= 0`),
  cbrt: unary('cbrt'),
  exp: unary('exp', (sql) => `(${sql}) < 709`),
  log: unary('ln', (sql) => `(${sql}) > 0`),
  ln: unary('ln', (sql) => `(${sql}) > 0`),
  log2: unary((float) => `(ln(${float}) / ln(2::float8))`, (sql) => `(${sql}) > 0`),
  log10: unary('log10', (sql) => `(${sql}) > 0`),
  pow: { args: [2, 2], compile: power },
  power: { args: [2, 2], compile: power },
  intDiv: { args: [2, 2], compile: intDiv },
  greatest: extreme('GREATEST'),
  least: extreme('LEAST'),
};
