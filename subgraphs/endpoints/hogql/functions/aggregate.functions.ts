import { asBoolean, asNumber, typed } from '../compile/hogql.coerce.js';
import { HogQLError } from '../hogql.errors.js';
import type { Call, FunctionDef, FunctionTable } from './hogql.functions.js';
import type { Expr } from '../hogql.types.js';

/** `fn([DISTINCT] args) [FILTER (WHERE ...)]`, the condition of an -If combinator joined with the query's FILTER. */
function aggregateSql(call: Call, fn: string, args: string[], conditions: (Expr | null)[] = [], within = ''): string {
  const tests = [...conditions, call.filter].filter((test): test is Expr => test !== null).map((test) => test.sql);
  const filter = tests.length > 0 ? ` FILTER (WHERE ${tests.join(' AND ')})` : '';
  return `${fn}(${call.distinct ? 'DISTINCT ' : ''}${args.join(', ')})${within}${filter}`;
}

/** The condition of an -If combinator: the last argument. */
function condition(call: Call): Expr {
  return asBoolean(call.args[call.args.length - 1]!, `${call.name} condition`);
}

function count(call: Call, value: Expr | undefined, test: Expr | null): Expr {
  const argument = value && value.sql !== '*' ? value.sql : '*';
  if (call.distinct && argument === '*') throw new HogQLError('count(DISTINCT ...) needs an expression');
  return typed(aggregateSql(call, 'count', [argument], [test]), 'Integer', [], { nullable: false });
}

/** uniq(a, b, ...): distinct non-NULL values (tuples of values); exact here where ClickHouse's uniq estimates. */
function uniq(call: Call, values: Expr[], test: Expr | null): Expr {
  const argument = values.length === 1 ? values[0]!.sql : `(${values.map((value) => value.sql).join(', ')})`;
  return typed(aggregateSql({ ...call, distinct: true }, 'count', [argument], [test]), 'Integer', [], { nullable: false });
}

/** sum(): of an empty set 0, as ClickHouse's, unless its argument may be NULL. */
function sum(call: Call, value: Expr, test: Expr | null): Expr {
  const number = asNumber(value, call.name);
  const sql = aggregateSql(call, 'sum', [number.sql], [test]);
  const type = number.type === 'Integer' ? 'Integer' : 'Float';
  return number.nullable ? typed(sql, type, [], { nullable: true }) : typed(`COALESCE(${sql}, 0)`, type, [], { nullable: false });
}

function avg(call: Call, value: Expr, test: Expr | null): Expr {
  const number = asNumber(value, call.name);
  return typed(`(${aggregateSql(call, 'avg', [number.sql], [test])})::float8`, 'Float', [], { nullable: true });
}

/** min() and max(): PostgreSQL has neither for booleans nor UUIDs, so those go through bool_and/or and text. */
function extreme(call: Call, fn: 'min' | 'max', value: Expr, test: Expr | null): Expr {
  if (value.type === 'JSON' || value.type === 'Array' || value.type === 'Tuple') throw new HogQLError(`${call.name} cannot compare ${value.type} values`);
  if (value.type === 'Boolean') return typed(aggregateSql(call, fn === 'min' ? 'bool_and' : 'bool_or', [value.sql], [test]), 'Boolean', [], { nullable: true });
  if (value.type === 'UUID') return typed(`(${aggregateSql(call, fn, [`(${value.sql})::text`], [test])})::uuid`, 'UUID', [], { nullable: true });
  return typed(aggregateSql(call, fn, [value.sql], [test]), value.type, [], { nullable: true, property: value.property });
}

/** The first value in an order: any() takes the first non-NULL one, argMax/argMin the one at the top of `by`. */
function firstOf(call: Call, value: Expr, order: string, tests: (Expr | null)[]): Expr {
  const sql = `(${aggregateSql({ ...call, distinct: false }, 'array_agg', [`${value.sql}${order}`], tests)})[1]`;
  return typed(sql, value.type, [], { nullable: true, property: value.property });
}

function notNull(value: Expr): Expr {
  return typed(`${value.sql} IS NOT NULL`, 'Boolean', [], { nullable: false });
}

function argExtreme(call: Call, direction: 'ASC' | 'DESC'): Expr {
  const [value, by] = call.args as [Expr, Expr];
  return firstOf(call, value, ` ORDER BY ${by.sql} ${direction}`, [notNull(by)]);
}

/** median and quantile(p): interpolated, exact where ClickHouse's estimate from a sample. */
function quantile(call: Call, level: Expr, value: Expr): Expr {
  const number = asNumber(value, call.name);
  const within = ` WITHIN GROUP (ORDER BY ${number.sql})`;
  return typed(aggregateSql({ ...call, distinct: false }, 'percentile_cont', [level.sql], [], within), 'Float', [], { nullable: true });
}

function quantileLevel(call: Call): Expr {
  const level = call.params[0]!;
  const value = level.literal?.value;
  if (typeof value !== 'number' || value < 0 || value > 1) throw new HogQLError(`${call.name} expects a level between 0 and 1, e.g. ${call.name}(0.9)(x)`);
  return level;
}

function groupArray(call: Call, value: Expr): Expr {
  const sql = aggregateSql(call, 'array_agg', [value.sql], [notNull(value)]);
  return typed(`COALESCE(${sql}, '{}')`, 'Array', [], { nullable: false });
}

const one = (compile: (call: Call) => Expr, extra: Partial<FunctionDef> = {}): FunctionDef => ({ args: [1, 1], aggregate: true, compile, ...extra });
const withCondition = (compile: (call: Call) => Expr): FunctionDef => ({ args: [2, 2], aggregate: true, compile });

/** Aggregations, as PostHog maps them (functions/aggregations.py), in PostgreSQL. */
export const AGGREGATE_FUNCTIONS: FunctionTable = {
  count: { args: [0, 1], aggregate: true, distinct: true, compile: (call) => count(call, call.args[0], null) },
  countIf: { args: [1, 2], aggregate: true, compile: (call) => count(call, call.args.length === 2 ? call.args[0] : undefined, condition(call)) },
  countDistinct: one((call) => count({ ...call, distinct: true }, call.args[0], null)),
  uniq: { args: [1, null], aggregate: true, compile: (call) => uniq(call, call.args, null) },
  uniqExact: { args: [1, null], aggregate: true, compile: (call) => uniq(call, call.args, null) },
  uniqIf: { args: [2, null], aggregate: true, compile: (call) => uniq(call, call.args.slice(0, -1), condition(call)) },
  sum: one((call) => sum(call, call.args[0]!, null), { distinct: true }),
  sumIf: withCondition((call) => sum(call, call.args[0]!, condition(call))),
  avg: one((call) => avg(call, call.args[0]!, null), { distinct: true }),
  avgIf: withCondition((call) => avg(call, call.args[0]!, condition(call))),
  min: one((call) => extreme(call, 'min', call.args[0]!, null)),
  minIf: withCondition((call) => extreme(call, 'min', call.args[0]!, condition(call))),
  max: one((call) => extreme(call, 'max', call.args[0]!, null)),
  maxIf: withCondition((call) => extreme(call, 'max', call.args[0]!, condition(call))),
  any: one((call) => firstOf(call, call.args[0]!, '', [notNull(call.args[0]!)])),
  argMax: { args: [2, 2], aggregate: true, compile: (call) => argExtreme(call, 'DESC') },
  argMin: { args: [2, 2], aggregate: true, compile: (call) => argExtreme(call, 'ASC') },
  median: one((call) => quantile(call, { sql: '0.5', type: 'Float', nullable: false }, call.args[0]!)),
  quantile: one((call) => quantile(call, quantileLevel(call), call.args[0]!), { params: [1, 1] }),
  groupArray: one((call) => groupArray(call, call.args[0]!)),
  groupUniqArray: one((call) => groupArray({ ...call, distinct: true }, call.args[0]!)),
};
