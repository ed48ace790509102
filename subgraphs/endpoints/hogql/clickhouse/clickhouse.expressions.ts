import { chainOf, children, required, text } from '../parse/hogql.ast.js';
import { constantValue } from '../compile/hogql.literals.js';
import { placeholderName, variableValue } from '../compile/hogql.placeholders.js';
import { findTable, memberOf, type TableDef } from '../compile/hogql.tables.js';
import { HogQLError } from '../hogql.errors.js';
import type { HogQLNode } from '../hogql.types.js';
import { asBoolean, asNumber, asText, asTimestamp, isNumeric, typed, unify } from './clickhouse.coerce.js';
import { zone, type PrintEnv, type Printed } from './clickhouse.context.js';
import { callPrinted, castPrinted } from './clickhouse.functions.js';
import type { Source } from '../compile/hogql.scope.js';
import type { ClickHouseParamType } from './clickhouse.params.js';
import { ingestionFacade } from '../../../ingestion/facade.js';
import { quoteIdentifier } from '../../../shared/clickhouse/clickhouse.ddl.js';
import { jsonPropertySql } from '../../../shared/clickhouse/clickhouse.json.js';

type Printer = (node: HogQLNode, env: PrintEnv) => Printed;

/** A construct the PostgreSQL compiler takes and this printer does not yet: refused, never printed wrong. */
export function notYet(what: string): HogQLError {
  return new HogQLError(`Not yet supported on the ClickHouse events store: ${what}`);
}

const PRINTERS: Record<string, Printer> = {
  Constant: (node, env) => literal(constantValue(node.value, node.value_type), env),
  Field: (node, env) => field(chainOf(node), env),
  Placeholder: placeholder,
  Alias: (node, env) => {
    const expr = printExpr(required(node, 'expr'), env);
    env.scope.aliases.set(text(node, 'alias'), expr);
    return expr;
  },
  Call: (node, env) => callPrinted(node, env),
  TypeCast: (node, env) => castPrinted(node, env),
  CompareOperation: compareNode,
  BetweenExpr: between,
  ArithmeticOperation: (node, env) => arithmetic(text(node, 'op'), printExpr(required(node, 'left'), env), printExpr(required(node, 'right'), env), env),
  And: (node, env) => logical(node, env, 'AND'),
  Or: (node, env) => logical(node, env, 'OR'),
  Not: (node, env) => {
    const operand = asBoolean(printExpr(required(node, 'expr'), env));
    return typed(`(NOT ${operand.sql})`, 'Boolean', operand);
  },
  Tuple: (node, env) => list(node, env, 'Tuple'),
  Array: (node, env) => list(node, env, 'Array'),
  ArrayAccess: arrayAccess,
  TupleAccess: (node, env) => printExpr(required(node, 'tuple'), env).items![(node.index as number) - 1]!,
  SelectQuery: subquery,
  SelectSetQuery: subquery,
  WindowFunction: windowFunction,
};

export function printExpr(node: HogQLNode, env: PrintEnv): Printed {
  const print = Object.hasOwn(PRINTERS, node.node) ? PRINTERS[node.node] : undefined;
  if (!print) throw notYet(node.node);
  return print(node, env);
}

/** A value known when printing: bound as a typed parameter, never written into the SQL. */
export function literal(value: unknown, env: PrintEnv): Printed {
  const known = { literal: { value } };
  if (value === null || value === undefined) return { sql: 'NULL', type: 'Null', nullable: true, literal: { value: null } };
  if (Array.isArray(value)) {
    const items = value.map((item) => literal(item, env));
    return { sql: env.ctx.params.bind(value, arrayType(value)), type: 'Array', nullable: false, items, ...known };
  }
  if (typeof value === 'boolean') return { sql: env.ctx.params.bind(value, 'Bool'), type: 'Boolean', nullable: false, ...known };
  if (typeof value === 'string') return { sql: env.ctx.params.bind(value, 'String'), type: 'String', nullable: false, ...known };
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value))) return { sql: env.ctx.params.bind(value, 'Int64'), type: 'Integer', nullable: false, ...known };
  if (typeof value === 'number') return { sql: env.ctx.params.bind(value, 'Float64'), type: 'Float', nullable: false, ...known };
  if (value instanceof Date) return { sql: `parseDateTime64BestEffort(${env.ctx.params.bind(value, 'String')}, 6, 'UTC')`, type: 'DateTime', nullable: false, ...known };
  throw new HogQLError(`Unsupported constant: ${JSON.stringify(value)}`);
}

function arrayType(values: unknown[]): ClickHouseParamType {
  const present = values.filter((value) => value !== null);
  const item = present.length === 0 ? 'String' : present.every((value) => typeof value === 'boolean') ? 'Bool' : present.every(isInteger) ? 'Int64' : present.every((value) => typeof value === 'number' || typeof value === 'bigint') ? 'Float64' : 'String';
  return present.length < values.length ? `Array(Nullable(${item}))` : `Array(${item})`;
}

const isInteger = (value: unknown) => typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value));

function placeholder(node: HogQLNode, env: PrintEnv): Printed {
  const name = placeholderName(node);
  const value = variableValue(name, env.ctx.variables);
  const expr = literal(value, env);
  // A Date variable is a point in time: a text without a zone is a time in the team's zone.
  if (env.ctx.variables[name]!.type === 'Date' && typeof value === 'string') return { ...asTimestamp(expr, env), literal: expr.literal };
  return expr;
}

/** Resolves a field as the PostgreSQL compiler does (compile/hogql.fields.ts), which has checked it. */
export function field(chain: (string | number)[], env: PrintEnv): Printed {
  const [first, ...rest] = chain as [string, ...(string | number)[]];
  const qualified = rest.length > 0 ? env.scope.source(first) : undefined;
  if (qualified) return inSource(qualified, rest, env);
  const alias = env.scope.aliases.get(first);
  if (alias) return rest.length > 0 ? property(alias, rest, env) : { ...alias, name: first };
  const owner = env.scope.sources.find((source) => (source.table ? memberOf(source.table, first) !== undefined : source.columns?.some((column) => column.name === first)));
  if (owner) return inSource(owner, chain, env);
  const cte = env.scope.ctes.expression(first);
  if (cte) {
    const expr = { ...printExpr(cte, env), name: first };
    return rest.length > 0 ? property(expr, rest, env) : expr;
  }
  throw new HogQLError(`Unknown field: ${first}`);
}

function inSource(source: Source, chain: (string | number)[], env: PrintEnv): Printed {
  if (source.table) return inTable(source, source.table, { alias: source.alias, path: '', nullable: source.optional }, chain, env);
  const [name, ...rest] = chain;
  const column = source.columns!.find((candidate) => candidate.name === name)!;
  const expr: Printed = { sql: `"${source.alias}"."${column.sqlName}"`, type: column.type, nullable: column.nullable || source.optional, property: column.property, name: column.name };
  return rest.length > 0 ? property(expr, rest, env) : expr;
}

function inTable(source: Source, table: TableDef, at: { alias: string; path: string; nullable: boolean }, chain: (string | number)[], env: PrintEnv): Printed {
  const [name, ...rest] = chain;
  const member = memberOf(table, String(name))!;
  if ('type' in member) {
    const expr: Printed = { sql: `"${at.alias}"."${member.name}"`, type: member.type, nullable: at.nullable, name: member.name, columns: materializedColumns(table, member.name, at.alias, env) };
    return rest.length > 0 ? property(expr, rest, env) : expr;
  }
  if ('path' in member) return inTable(source, table, at, [...member.path, ...rest], env);
  const target = findTable(member.table)!;
  const path = at.path ? `${at.path}.${member.name}` : member.name;
  const alias = source.lazyAlias(path, (joined) => `LEFT JOIN ${ingestionFacade.querySurface.clickhouseTable(target.name, env.ctx.database, env.ctx.team)} AS "${joined}" ON "${joined}"."${member.to}" = "${at.alias}"."${member.from}"`);
  return inTable(source, target, { alias, path, nullable: true }, rest, env);
}

/**
 * The materialized columns of the events table's `properties` (none for another table or column),
 * as its subquery gives them in this printing (clickhouse.query-tables.ts).
 */
function materializedColumns(table: TableDef, column: string, alias: string, env: PrintEnv): ReadonlyMap<string, string> | undefined {
  if (table.name !== 'events' || column !== 'properties') return undefined;
  const ready = ingestionFacade.querySurface.clickhouseEventColumns(env.ctx.database);
  if (ready.size === 0) return undefined;
  return new Map([...ready].map(([key, name]) => [key, `"${alias}".${quoteIdentifier(name)}`]));
}

/**
 * A property, read as PostHog reads one (compile/hogql.properties.ts): a string's content, a number
 * or boolean as written, an object or array as JSON; NULL when absent or JSON null. Keys are bound.
 */
export function property(base: Printed, path: (string | number)[], env: PrintEnv): Printed {
  const document = base.document ?? (base.type === 'JSON' || base.property ? { text: base.sql, keys: [] } : null);
  if (!document) throw new HogQLError(`Cannot access ${path.join('.')} on a ${base.type}`);
  const keys = [...document.keys, ...path.map((key) => (typeof key === 'string' ? env.ctx.params.bind(key, 'String') : env.ctx.params.bind(key, 'Int64')))];
  const at = [document.text, ...keys].join(', ');
  // A top-level key kept in a materialized column: the column, computed by the same expression.
  const column = base.columns && path.length === 1 && typeof path[0] === 'string' ? base.columns.get(path[0]) : undefined;
  return {
    sql: column ?? jsonPropertySql(at),
    type: 'String',
    nullable: true,
    property: true,
    aggregate: base.aggregate,
    document: { text: document.text, keys },
    // PostHog names the column after the property path: `$browser`, `a__b` for `properties.a.b`.
    name: [...(base.property && base.name ? [base.name] : []), ...path.map(String)].join('__'),
  };
}

function arrayAccess(node: HogQLNode, env: PrintEnv): Printed {
  const array = printExpr(required(node, 'array'), env);
  const index = printExpr(required(node, 'property'), env);
  const key = index.literal?.value;
  if ((array.type === 'JSON' || array.document) && (typeof key === 'string' || typeof key === 'bigint' || Number.isInteger(key))) return property(array, [typeof key === 'bigint' ? Number(key) : (key as string | number)], env);
  return typed(`arrayElementOrNull(${array.sql}, ${index.sql})`, 'Unknown', [array, index], { nullable: true });
}

function list(node: HogQLNode, env: PrintEnv, type: 'Tuple' | 'Array'): Printed {
  const items = children(node, 'exprs').map((item) => printExpr(item, env));
  if (type === 'Array' && items.length > 0 && items.every((item) => item.literal)) return literal(items.map((item) => item.literal!.value), env);
  return typed(`${type === 'Tuple' ? 'tuple' : 'array'}(${items.map((item) => item.sql).join(', ')})`, type, items, { items });
}

function logical(node: HogQLNode, env: PrintEnv, operator: 'AND' | 'OR'): Printed {
  const operands = children(node, 'exprs').map((item) => asBoolean(printExpr(item, env)));
  return typed(`(${operands.map((operand) => operand.sql).join(` ${operator} `)})`, 'Boolean', operands);
}

function subquery(node: HogQLNode, env: PrintEnv): Printed {
  const printed = env.ctx.printQuery(node, env.scope.ctes.child());
  return { sql: `(${printed.sql})`, type: printed.columns[0]!.type, nullable: true };
}

/** How PostHog treats NULL in each comparison (compile/hogql.compare.ts): the answer with one NULL side, and with two. */
const OPERATORS: Record<string, { fn: (l: string, r: string) => string; oneNull: boolean; bothNull: boolean; textual?: boolean }> = {
  '==': { fn: (l, r) => `equals(${l}, ${r})`, oneNull: false, bothNull: true },
  '!=': { fn: (l, r) => `notEquals(${l}, ${r})`, oneNull: true, bothNull: false },
  '<': { fn: (l, r) => `less(${l}, ${r})`, oneNull: false, bothNull: false },
  '<=': { fn: (l, r) => `lessOrEquals(${l}, ${r})`, oneNull: false, bothNull: false },
  '>': { fn: (l, r) => `greater(${l}, ${r})`, oneNull: false, bothNull: false },
  '>=': { fn: (l, r) => `greaterOrEquals(${l}, ${r})`, oneNull: false, bothNull: false },
  like: { fn: (l, r) => `like(${l}, ${r})`, oneNull: false, bothNull: true, textual: true },
  'not like': { fn: (l, r) => `notLike(${l}, ${r})`, oneNull: true, bothNull: false, textual: true },
  ilike: { fn: (l, r) => `ilike(${l}, ${r})`, oneNull: false, bothNull: true, textual: true },
  'not ilike': { fn: (l, r) => `notILike(${l}, ${r})`, oneNull: true, bothNull: false, textual: true },
  '=~': { fn: (l, r) => `match(${l}, ${r})`, oneNull: false, bothNull: true, textual: true },
  '!~': { fn: (l, r) => `NOT match(${l}, ${r})`, oneNull: true, bothNull: false, textual: true },
  '=~*': { fn: (l, r) => `match(${l}, concat('(?i)', ${r}))`, oneNull: false, bothNull: true, textual: true },
  '!~*': { fn: (l, r) => `NOT match(${l}, concat('(?i)', ${r}))`, oneNull: true, bothNull: false, textual: true },
};

function compareNode(node: HogQLNode, env: PrintEnv): Printed {
  const op = text(node, 'op');
  const left = printExpr(required(node, 'left'), env);
  if (op === 'in' || op === 'not in') return inValues(left, printExpr(required(node, 'right'), env), op === 'not in', env);
  return compare(op, left, printExpr(required(node, 'right'), env), env);
}

export function compare(op: string, left: Printed, right: Printed, env: PrintEnv): Printed {
  const operator = OPERATORS[op];
  if (!operator) throw notYet(`comparison ${op}`);
  if ((op === '==' || op === '!=') && (left.type === 'Null' || right.type === 'Null')) {
    const operand = left.type === 'Null' ? right : left;
    if (left.type === 'Null' && right.type === 'Null') return typed(op === '==' ? 'true' : 'false', 'Boolean', [], { nullable: false });
    return typed(`${op === '==' ? 'isNull' : 'isNotNull'}(${operand.sql})`, 'Boolean', [], { nullable: false });
  }
  const [l, r] = operator.textual ? [asText(left, env), asText(right, env)] : unify(left, right, env);
  const sql = operator.fn(l.sql, r.sql);
  return typed(nullSafe(sql, operator, l, r, env), 'Boolean', [l, r], { nullable: false });
}

function nullSafe(sql: string, operator: { oneNull: boolean; bothNull: boolean }, left: Printed, right: Printed, env: PrintEnv): string {
  if (env.clause === 'join' || (!left.nullable && !right.nullable)) return sql;
  if (left.literal || right.literal || operator.oneNull === operator.bothNull) return `ifNull(${sql}, ${operator.oneNull})`;
  const fallback = operator.bothNull ? `isNull(${left.sql}) AND isNull(${right.sql})` : `isNotNull(${left.sql}) OR isNotNull(${right.sql})`;
  return `ifNull(${sql}, ${fallback})`;
}

function between(node: HogQLNode, env: PrintEnv): Printed {
  const [x, low] = unify(printExpr(required(node, 'expr'), env), printExpr(required(node, 'low'), env), env);
  const [, high] = unify(x, printExpr(required(node, 'high'), env), env);
  const test = `${node.negated ? 'NOT ' : ''}(${x.sql} BETWEEN ${low.sql} AND ${high.sql})`;
  return typed(x.nullable || low.nullable || high.nullable ? `ifNull(${test}, false)` : test, 'Boolean', [x, low, high], { nullable: false });
}

/** `x [NOT] IN ...` with NULL as a value (the query runs with transform_null_in, as PostHog's do). */
export function inValues(left: Printed, right: Printed, negated: boolean, env: PrintEnv): Printed {
  const keyword = negated ? 'NOT IN' : 'IN';
  if (right.items && right.items.length === 0) return typed(String(negated), 'Boolean', [], { nullable: false });
  if (right.items) {
    const [l] = unify(left, right.items[0]!, env);
    const items = right.items.map((item) => unify(l, item, env)[1]);
    return typed(`(${l.sql} ${keyword} (${items.map((item) => item.sql).join(', ')}))`, 'Boolean', l, { nullable: false });
  }
  if (right.type === 'Array') return typed(`(${negated ? 'NOT ' : ''}has(${right.sql}, ${left.sql}))`, 'Boolean', left, { nullable: false });
  const [l, r] = unify(left, right, env);
  return typed(`(${l.sql} ${keyword} ${r.sql})`, 'Boolean', l, { nullable: false });
}

/** `a + b` and co.: times moved on the team's wall clock, numbers as the PostgreSQL compiler reads them. */
export function arithmetic(op: string, left: Printed, right: Printed, env: PrintEnv): Printed {
  const time = [left, right].find((side) => side.type === 'DateTime' || side.type === 'Date');
  if (time) return timeArithmetic(op, left, right, time, env);
  if (left.type === 'Interval' && right.type === 'Interval') return typed(`(${left.sql} ${op} ${right.sql})`, 'Interval', [left, right]);
  const l = asNumber(left);
  const r = asNumber(right);
  if (op === '/') return typed(`(toFloat64(${l.sql}) / nullIf(toFloat64(${r.sql}), 0))`, 'Float', [l, r], { nullable: true });
  const integers = l.type === 'Integer' && r.type === 'Integer';
  if (op === '%') return typed(integers ? `modulo(${l.sql}, nullIf(${r.sql}, 0))` : `modulo(toFloat64(${l.sql}), nullIf(toFloat64(${r.sql}), 0))`, integers ? 'Integer' : 'Float', [l, r], { nullable: true });
  const fn = { '+': 'plus', '-': 'minus', '*': 'multiply' }[op];
  if (!fn) throw notYet(`arithmetic ${op}`);
  return typed(`${fn}(${l.sql}, ${r.sql})`, integers ? 'Integer' : isNumeric(l) && isNumeric(r) ? 'Float' : 'Unknown', [l, r]);
}

function timeArithmetic(op: string, left: Printed, right: Printed, time: Printed, env: PrintEnv): Printed {
  const other = time === left ? right : left;
  if (other.type === time.type && op === '-') {
    return time.type === 'Date' ? typed(`toInt64(dateDiff('day', ${right.sql}, ${left.sql}))`, 'Integer', [left, right]) : typed(`(toUnixTimestamp64Micro(${left.sql}) - toUnixTimestamp64Micro(${right.sql})) / 1000000`, 'Float', [left, right]);
  }
  const interval = other.type === 'Interval' ? other : typed(time.type === 'Date' ? `toIntervalDay(${other.sql})` : `toIntervalSecond(${other.sql})`, 'Interval', other, { wholeDays: time.type === 'Date' });
  const fn = op === '+' ? 'plus' : 'minus';
  if (time.type === 'Date' && interval.wholeDays) return typed(`${fn}(${time.sql}, ${interval.sql})`, 'Date', [time, interval]);
  // On the team's wall clock: a day across a change of daylight saving time is a calendar day.
  const local = time.type === 'Date' ? `toDateTime64(${time.sql}, 6, ${zone(env)})` : `toTimeZone(${time.sql}, ${zone(env)})`;
  return typed(`${fn}(${local}, ${interval.sql})`, 'DateTime', [time, interval]);
}

/**
 * Window functions, as the PostgreSQL compiler gives them (compile/hogql.window.ts): lag and lead
 * look past the frame (ClickHouse's lagInFrame/leadInFrame stay within it, so they are given the
 * whole partition when the query names no frame); first_value and last_value keep NULLs.
 */
const WINDOW_FUNCTIONS: Record<string, { fn: string; type?: 'Integer' | 'Float'; wholePartition?: boolean }> = {
  row_number: { fn: 'row_number', type: 'Integer' },
  rank: { fn: 'rank', type: 'Integer' },
  dense_rank: { fn: 'dense_rank', type: 'Integer' },
  percent_rank: { fn: 'percent_rank', type: 'Float' },
  cume_dist: { fn: 'cume_dist', type: 'Float' },
  ntile: { fn: 'ntile', type: 'Integer' },
  lagInFrame: { fn: 'lagInFrame', wholePartition: true },
  leadInFrame: { fn: 'leadInFrame', wholePartition: true },
  lag: { fn: 'lagInFrame', wholePartition: true },
  lead: { fn: 'leadInFrame', wholePartition: true },
  first_value: { fn: 'first_value_respect_nulls' },
  last_value: { fn: 'last_value_respect_nulls' },
  nth_value: { fn: 'nth_value' },
  min: { fn: 'min' },
  max: { fn: 'max' },
  sum: { fn: 'sum' },
  avg: { fn: 'avg', type: 'Float' },
  count: { fn: 'count', type: 'Integer' },
};

function windowFunction(node: HogQLNode, env: PrintEnv): Printed {
  const name = text(node, 'name');
  const def = WINDOW_FUNCTIONS[name];
  if (!def) throw notYet(`window function ${name}`);
  const args = children(node, 'exprs')
    .filter((arg) => !(arg.node === 'Field' && chainOf(arg).join('.') === '*'))
    .map((arg, index) => {
      const printed = printExpr(arg, env);
      // Offsets and positions are UInt64 to ClickHouse; values that must be numbers read as numbers.
      if (index > 0 || name === 'ntile') return typed(`toUInt64(${printed.sql})`, 'Integer', printed);
      return name === 'sum' || name === 'avg' ? asNumber(printed) : printed;
    });
  const type = def.type ?? (name === 'sum' ? (args[0]?.type === 'Integer' ? 'Integer' : 'Float') : (args[0]?.type ?? 'Unknown'));
  const sql = `${def.fn}(${args.map((arg) => arg.sql).join(', ')}) OVER (${windowSpec(node, env, def.wholePartition === true)})`;
  return typed(sql, type, args, { nullable: true });
}

function windowSpec(node: HogQLNode, env: PrintEnv, wholePartition: boolean): string {
  const over = (node.over_expr as HogQLNode | null) ?? env.scope.windows.get(String(node.over_identifier))!;
  const inner: PrintEnv = { ...env, clause: 'window' };
  const partition = children(over, 'partition_by').map((item) => printExpr(item, inner).sql);
  const order = children(over, 'order_by').map((item) => `${printExpr(required(item, 'expr'), inner).sql} ${item.order === 'DESC' ? 'DESC' : 'ASC'} NULLS LAST`);
  const frame = frameSql(over) || (wholePartition && order.length > 0 ? 'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING' : '');
  return [partition.length > 0 ? `PARTITION BY ${partition.join(', ')}` : '', order.length > 0 ? `ORDER BY ${order.join(', ')}` : '', frame].filter(Boolean).join(' ');
}

/** A frame as the query gave it; offsets are numbers the PostgreSQL compile checked, written back. */
function frameSql(over: HogQLNode): string {
  const start = over.frame_start as HogQLNode | null | undefined;
  if (!start) return '';
  const bound = (at: HogQLNode) => (at.frame_type === 'CURRENT ROW' ? 'CURRENT ROW' : `${at.frame_value === null || at.frame_value === undefined ? 'UNBOUNDED' : Number(at.frame_value)} ${String(at.frame_type)}`);
  const method = over.frame_method === 'RANGE' ? 'RANGE' : 'ROWS';
  const end = over.frame_end as HogQLNode | null | undefined;
  return end ? `${method} BETWEEN ${bound(start)} AND ${bound(end)}` : `${method} ${bound(start)}`;
}
