import type { Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import type { PgCast } from './hogql.params.js';
import type { Expr, ExprType } from '../hogql.types.js';

/** Integers PostgreSQL's bigint holds, as ClickHouse's Int64. */
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An expression whose value is known when compiling: a constant, or a placeholder's value. */
export function literalExpr(value: unknown, env: Env): Expr {
  if (value === null || value === undefined) return { sql: 'NULL', type: 'Null', nullable: true, literal: { value: null } };
  if (Array.isArray(value)) return listExpr(value, env);
  const [cast, type] = castOf(value);
  return { sql: env.ctx.params.bind(plainValue(value), cast), type, nullable: false, literal: { value } };
}

/** A list written in the query or given as a variable: an array (and the items, for IN). */
export function listExpr(values: unknown[], env: Env): Expr {
  const items = values.map((value) => literalExpr(value, env));
  const cast = arrayCast(values);
  return { sql: env.ctx.params.bind(values.map(plainValue), cast), type: 'Array', nullable: false, literal: { value: values }, items };
}

function castOf(value: unknown): [PgCast, ExprType] {
  if (typeof value === 'boolean') return ['boolean', 'Boolean'];
  if (typeof value === 'string') return ['text', 'String'];
  if (typeof value === 'bigint') return ['bigint', 'Integer'];
  if (value instanceof Date) return ['timestamptz', 'DateTime'];
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return ['bigint', 'Integer'];
    return ['float8', 'Float'];
  }
  throw new HogQLError(`Unsupported constant: ${JSON.stringify(value)}`);
}

/** The array type of a list: all of one kind, else an error (PostgreSQL arrays hold one type). */
export function arrayCast(values: unknown[]): PgCast {
  const casts = new Set(values.filter((value) => value !== null).map((value) => castOf(value)[0]));
  if (casts.size === 0 || (casts.size === 1 && casts.has('text'))) return 'text[]';
  if (casts.size === 1 && casts.has('boolean')) return 'boolean[]';
  if ([...casts].every((cast) => cast === 'bigint')) return 'bigint[]';
  if ([...casts].every((cast) => cast === 'bigint' || cast === 'float8')) return 'float8[]';
  throw new HogQLError('A list must hold values of one type (strings, numbers or booleans).');
}

/** A value as the driver sends it: big integers, times and non-finite floats as text PostgreSQL reads. */
export function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}

/**
 * The value of a Constant node. The parser gives numbers beyond JSON's reach as text tagged
 * `value_type: number` (huge integers, `inf`, `nan`).
 */
export function constantValue(value: unknown, valueType: unknown): unknown {
  if (valueType !== 'number' || typeof value !== 'string') return value;
  if (value === 'Infinity' || value === '-Infinity' || value === 'NaN') return Number(value);
  if (/^-?\d+$/.test(value)) {
    const big = BigInt(value);
    if (big >= INT64_MIN && big <= INT64_MAX) return big;
  }
  return Number(value);
}
