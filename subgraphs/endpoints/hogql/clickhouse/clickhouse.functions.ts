import { chainOf, child, children, isKind, required, text } from '../parse/hogql.ast.js';
import { canonicalFunctionName, CASTS } from '../functions/hogql.functions.js';
import type { HogQLNode } from '../hogql.types.js';
import { asBoolean, asDate, asNumber, asText, asTimestamp, typed, unify } from './clickhouse.coerce.js';
import { zone, type PrintEnv, type Printed } from './clickhouse.context.js';
import { arithmetic, compare, inValues, notYet, printExpr } from './clickhouse.expressions.js';

/** A call as a function's printer sees it: arguments printed. */
interface CallArgs {
  args: Printed[];
  params: Printed[];
  distinct: boolean;
  /** `FILTER (WHERE ...)` of an aggregation, as a condition. */
  filter: Printed | null;
  env: PrintEnv;
}

type FunctionPrinter = (call: CallArgs) => Printed;

const sqlOf = (args: Printed[]) => args.map((arg) => arg.sql).join(', ');

/** An aggregation's condition: its `If` argument and its FILTER, both. */
function conditionOf(call: CallArgs, own: Printed | undefined): string | null {
  const parts = [own, call.filter].filter((part): part is Printed => part !== undefined && part !== null).map((part) => asBoolean(part).sql);
  return parts.length === 0 ? null : parts.join(' AND ');
}

/** `fn(x)`, or `fnIf(x, condition)` with a condition: ClickHouse's -If combinator. */
function aggregate(fn: string, args: string[], condition: string | null, distinct = false): string {
  if (condition) return `${fn}${distinct ? 'Distinct' : ''}If(${[...args, condition].join(', ')})`;
  return `${fn}(${distinct ? 'DISTINCT ' : ''}${args.join(', ')})`;
}

const counted = (call: CallArgs, arg: Printed | undefined, own: Printed | undefined): Printed => {
  const condition = conditionOf(call, own);
  const args = arg && arg.sql !== '*' ? [arg.sql] : [];
  return { sql: aggregate('count', args, condition, call.distinct && args.length > 0), type: 'Integer', nullable: false, aggregate: true };
};

/** Exact distinct counts, as the PostgreSQL compiler counts them (ClickHouse's `uniq` estimates). */
const uniq = (call: CallArgs, args: Printed[], own: Printed | undefined): Printed => ({
  sql: aggregate('uniqExact', [args.length === 1 ? args[0]!.sql : `tuple(${sqlOf(args)})`], conditionOf(call, own)),
  type: 'Integer',
  nullable: false,
  aggregate: true,
});

const summed = (call: CallArgs, arg: Printed, own: Printed | undefined): Printed => {
  const value = asNumber(arg);
  return { sql: aggregate('sum', [value.sql], conditionOf(call, own), call.distinct), type: value.type === 'Integer' ? 'Integer' : 'Float', nullable: value.nullable, aggregate: true };
};

/** NULL over no rows, as PostgreSQL's avg, min and max answer (ClickHouse's: nan, or the type's default). */
const orNull = (fn: string, numeric: boolean) => (call: CallArgs, arg: Printed, own: Printed | undefined): Printed => {
  const value = numeric ? asNumber(arg) : arg;
  const type = fn === 'avg' ? 'Float' : value.type;
  return { sql: aggregate(`${fn}OrNull`, [value.sql], conditionOf(call, own), call.distinct), type, nullable: true, aggregate: true };
};

const quantile = (level: string, call: CallArgs, arg: Printed): Printed => ({
  sql: aggregate(`quantileExactInclusive(${level})`, [asNumber(arg).sql], conditionOf(call, undefined)),
  type: 'Float',
  nullable: true,
  aggregate: true,
});

const last = <T>(items: T[]) => items[items.length - 1];

const INTERVAL_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];

/** The functions printed so far, by HogQL name; the rest are refused by name until they are. */
const FUNCTIONS: Record<string, FunctionPrinter> = {
  count: (call) => counted(call, call.args[0], undefined),
  countIf: (call) => counted(call, call.args.length === 2 ? call.args[0] : undefined, last(call.args)),
  countDistinct: (call) => counted({ ...call, distinct: true }, call.args[0], undefined),
  uniq: (call) => uniq(call, call.args, undefined),
  uniqExact: (call) => uniq(call, call.args, undefined),
  uniqIf: (call) => uniq(call, call.args.slice(0, -1), last(call.args)),
  sum: (call) => summed(call, call.args[0]!, undefined),
  sumIf: (call) => summed(call, call.args[0]!, call.args[1]),
  avg: (call) => orNull('avg', true)(call, call.args[0]!, undefined),
  avgIf: (call) => orNull('avg', true)(call, call.args[0]!, call.args[1]),
  min: (call) => orNull('min', false)(call, call.args[0]!, undefined),
  minIf: (call) => orNull('min', false)(call, call.args[0]!, call.args[1]),
  max: (call) => orNull('max', false)(call, call.args[0]!, undefined),
  maxIf: (call) => orNull('max', false)(call, call.args[0]!, call.args[1]),
  any: (call) => ({ sql: aggregate('any', [call.args[0]!.sql], conditionOf(call, undefined)), type: call.args[0]!.type, nullable: true, aggregate: true }),
  argMax: (call) => ({ sql: aggregate('argMaxOrNull', [sqlOf(call.args)], conditionOf(call, undefined)), type: call.args[0]!.type, nullable: true, aggregate: true }),
  argMin: (call) => ({ sql: aggregate('argMinOrNull', [sqlOf(call.args)], conditionOf(call, undefined)), type: call.args[0]!.type, nullable: true, aggregate: true }),
  median: (call) => quantile('0.5', call, call.args[0]!),
  quantile: (call) => quantile(call.params[0]!.sql, call, call.args[0]!),
  groupArray: (call) => ({ sql: aggregate('groupArray', [call.args[0]!.sql], conditionOf(call, undefined)), type: 'Array', nullable: false, aggregate: true }),
  groupUniqArray: (call) => ({ sql: aggregate('groupUniqArray', [call.args[0]!.sql], conditionOf(call, undefined)), type: 'Array', nullable: false, aggregate: true }),

  if: ({ args: [condition, then, otherwise] }) => typed(`if(${asBoolean(condition!).sql}, ${then!.sql}, ${otherwise!.sql})`, then!.type === 'Null' ? otherwise!.type : then!.type, [then!, otherwise!]),
  multiIf: ({ args }) => typed(`multiIf(${args.map((arg, index) => (index % 2 === 0 && index < args.length - 1 ? asBoolean(arg).sql : arg.sql)).join(', ')})`, args[1]!.type, args.filter((_, index) => index % 2 === 1 || index === args.length - 1)),
  _caseWithExpression: ({ args: [subject, ...rest], env }) => {
    // CASE x WHEN a THEN b ... ELSE c: a WHEN matches when x equals it (NULL matches nothing).
    const branches: string[] = [];
    for (let index = 0; index + 1 < rest.length; index += 2) {
      const [l, r] = unify(subject!, rest[index]!, env);
      branches.push(`ifNull(equals(${l.sql}, ${r.sql}), 0)`, rest[index + 1]!.sql);
    }
    const results = rest.filter((_, index) => index % 2 === 1 || index === rest.length - 1);
    return typed(`multiIf(${[...branches, rest.at(-1)!.sql].join(', ')})`, results.find((result) => result.type !== 'Null')?.type ?? 'Null', results);
  },
  coalesce: ({ args }) => typed(`coalesce(${sqlOf(args)})`, args.find((arg) => arg.type !== 'Null')?.type ?? 'Null', args, { nullable: args.every((arg) => arg.nullable) }),
  ifNull: ({ args }) => typed(`ifNull(${sqlOf(args)})`, args.find((arg) => arg.type !== 'Null')?.type ?? 'Null', args, { nullable: args.every((arg) => arg.nullable) }),
  nullIf: ({ args }) => typed(`nullIf(${sqlOf(args)})`, args[0]!.type, args, { nullable: true }),
  isNull: ({ args }) => typed(`isNull(${args[0]!.sql})`, 'Boolean', [], { nullable: false }),
  isNotNull: ({ args }) => typed(`isNotNull(${args[0]!.sql})`, 'Boolean', [], { nullable: false }),
  assumeNotNull: ({ args }) => args[0]!,
  toNullable: ({ args }) => ({ ...args[0]!, nullable: true }),

  equals: ({ args, env }) => compare('==', args[0]!, args[1]!, env),
  notEquals: ({ args, env }) => compare('!=', args[0]!, args[1]!, env),
  less: ({ args, env }) => compare('<', args[0]!, args[1]!, env),
  lessOrEquals: ({ args, env }) => compare('<=', args[0]!, args[1]!, env),
  greater: ({ args, env }) => compare('>', args[0]!, args[1]!, env),
  greaterOrEquals: ({ args, env }) => compare('>=', args[0]!, args[1]!, env),
  like: ({ args, env }) => compare('like', args[0]!, args[1]!, env),
  ilike: ({ args, env }) => compare('ilike', args[0]!, args[1]!, env),
  notLike: ({ args, env }) => compare('not like', args[0]!, args[1]!, env),
  notILike: ({ args, env }) => compare('not ilike', args[0]!, args[1]!, env),
  match: ({ args, env }) => compare('=~', args[0]!, args[1]!, env),
  plus: ({ args, env }) => arithmetic('+', args[0]!, args[1]!, env),
  minus: ({ args, env }) => arithmetic('-', args[0]!, args[1]!, env),
  multiply: ({ args, env }) => arithmetic('*', args[0]!, args[1]!, env),
  divide: ({ args, env }) => arithmetic('/', args[0]!, args[1]!, env),
  modulo: ({ args, env }) => arithmetic('%', args[0]!, args[1]!, env),
  and: ({ args }) => typed(`(${args.map((arg) => asBoolean(arg).sql).join(' AND ')})`, 'Boolean', args),
  or: ({ args }) => typed(`(${args.map((arg) => asBoolean(arg).sql).join(' OR ')})`, 'Boolean', args),
  not: ({ args }) => typed(`(NOT ${asBoolean(args[0]!).sql})`, 'Boolean', args),
  in: ({ args, env }) => inValues(args[0]!, args[1]!, false, env),
  notIn: ({ args, env }) => inValues(args[0]!, args[1]!, true, env),
  has: ({ args, env }) => inValues(args[1]!, args[0]!, false, env),
  tuple: ({ args }) => typed(`tuple(${sqlOf(args)})`, 'Tuple', args, { items: args }),
  exists: ({ args }) => typed(`exists${args[0]!.sql}`, 'Boolean', [], { nullable: false }),

  now: () => ({ sql: "now64(6, 'UTC')", type: 'DateTime', nullable: false }),
  today: ({ env }) => ({ sql: `toDate(now64(6), ${zone(env)})`, type: 'Date', nullable: false }),
  yesterday: ({ env }) => ({ sql: `minus(toDate(now64(6), ${zone(env)}), 1)`, type: 'Date', nullable: false }),
  toStartOfMinute: timeStart('toStartOfMinute'),
  toStartOfHour: timeStart('toStartOfHour'),
  toStartOfDay: timeStart('toStartOfDay'),
  toStartOfWeek: ({ args, env }) => typed(`toStartOfWeek(${asTimestamp(args[0]!, env).sql}, toUInt8(${args[1]?.sql ?? '0'}), ${zone(env)})`, 'Date', args[0]!),
  toMonday: dateStart('toMonday'),
  toStartOfMonth: dateStart('toStartOfMonth'),
  toStartOfQuarter: dateStart('toStartOfQuarter'),
  toStartOfYear: dateStart('toStartOfYear'),
  toYear: datePart('toYear'),
  toQuarter: datePart('toQuarter'),
  toMonth: datePart('toMonth'),
  toDayOfMonth: datePart('toDayOfMonth'),
  toDayOfYear: datePart('toDayOfYear'),
  toHour: datePart('toHour'),
  toMinute: datePart('toMinute'),
  toSecond: datePart('toSecond'),
  toDayOfWeek: ({ args, env }) => typed(`toInt64(toDayOfWeek(${asTimestamp(args[0]!, env).sql}, toUInt8(${args[1]?.sql ?? '0'}), ${zone(env)}))`, 'Integer', args[0]!),
  toUnixTimestamp: ({ args, env }) => typed(`toInt64(toUnixTimestamp(${asTimestamp(args[0]!, env).sql}))`, 'Integer', args[0]!),
  dateDiff: ({ args, env }) => typed(`toInt64(dateDiff(${args[0]!.sql}, ${asTimestamp(args[1]!, env).sql}, ${asTimestamp(args[2]!, env).sql}, ${zone(env)}))`, 'Integer', args.slice(1)),
  toDate: ({ args, env }) => asDate(args[0]!, env),
  toDateTime: ({ args, env }) => asTimestamp(args[0]!, args[1] ? { ...env, zoneSql: args[1].sql } : env),
  toBool: ({ args }) => {
    const value = args[0]!;
    if (value.type === 'Boolean' || value.type === 'Null') return value;
    if (value.type === 'Integer' || value.type === 'Float') return typed(`(${value.sql} != 0)`, 'Boolean', value);
    return typed(`multiIf(lower(trimBoth(${value.sql})) IN ('true', '1'), true, lower(trimBoth(${value.sql})) IN ('false', '0'), false, NULL)`, 'Boolean', value, { nullable: true });
  },
  toString: ({ args, env }: CallArgs) => asText(args[0]!, env),
  toInt: ({ args }) => typed(args[0]!.type === 'Integer' ? args[0]!.sql : `toInt64OrNull(toString(${args[0]!.sql}))`, 'Integer', args[0]!, { nullable: args[0]!.type !== 'Integer' || args[0]!.nullable }),
  toFloat: ({ args }) => typed(`toFloat64OrNull(toString(${args[0]!.sql}))`, 'Float', args[0]!, { nullable: true }),
  toUUID: ({ args }) => typed(`toUUIDOrNull(toString(${args[0]!.sql}))`, 'UUID', args[0]!, { nullable: true }),

  concat: ({ args, env }) => typed(`concat(${args.map((arg) => (arg.type === 'Null' ? "''" : `ifNull(${asText(arg, env).sql}, '')`)).join(', ')})`, 'String', [], { nullable: false }),
  lower: text1('lower'),
  upper: text1('upper'),
  trim: text1('trimBoth'),
  trimLeft: text1('trimLeft'),
  trimRight: text1('trimRight'),
  reverse: text1('reverseUTF8'),
  length: ({ args }) => typed(`toInt64(length(${args[0]!.sql}))`, 'Integer', args[0]!),
  lengthUTF8: ({ args }) => typed(`toInt64(lengthUTF8(${args[0]!.sql}))`, 'Integer', args[0]!),
  empty: ({ args }) => typed(`empty(${args[0]!.sql})`, 'Boolean', args[0]!),
  notEmpty: ({ args }) => typed(`notEmpty(${args[0]!.sql})`, 'Boolean', args[0]!),
  startsWith: ({ args }) => typed(`startsWith(${sqlOf(args)})`, 'Boolean', args),
  endsWith: ({ args }) => typed(`endsWith(${sqlOf(args)})`, 'Boolean', args),
  replaceAll: ({ args }) => typed(`replaceAll(${sqlOf(args)})`, 'String', args),
  replace: ({ args }) => typed(`replaceAll(${sqlOf(args)})`, 'String', args),
  replaceRegexpAll: ({ args }) => typed(`replaceRegexpAll(${sqlOf(args)})`, 'String', args),
  replaceRegexpOne: ({ args }) => typed(`replaceRegexpOne(${sqlOf(args)})`, 'String', args),
  substring: ({ args }) => typed(`substringUTF8(${args[0]!.sql}, ${args.slice(1).map((arg) => `toInt64(${arg.sql})`).join(', ')})`, 'String', args),
  position: ({ args }) => typed(`toInt64(positionUTF8(${sqlOf(args)}))`, 'Integer', args),
  positionCaseInsensitive: ({ args }) => typed(`toInt64(positionCaseInsensitiveUTF8(${sqlOf(args)}))`, 'Integer', args),
  repeat: ({ args }) => typed(`repeat(${args[0]!.sql}, toUInt64(${args[1]!.sql}))`, 'String', args),

  abs: math1('abs'),
  floor: ({ args }) => typed(`floor(${sqlOf([asNumber(args[0]!), ...args.slice(1)])})`, asNumber(args[0]!).type, args),
  ceil: ({ args }) => typed(`ceil(${sqlOf([asNumber(args[0]!), ...args.slice(1)])})`, asNumber(args[0]!).type, args),
  round: ({ args }) => typed(`round(${sqlOf([asNumber(args[0]!), ...args.slice(1)])})`, asNumber(args[0]!).type, args),
  intDiv: ({ args }) => typed(`intDivOrNull(${sqlOf(args.map((arg) => asNumber(arg)))})`, 'Integer', args, { nullable: true }),
  ceiling: ({ args }) => typed(`ceil(${sqlOf([asNumber(args[0]!), ...args.slice(1)])})`, asNumber(args[0]!).type, args),
  sign: ({ args }) => typed(`toInt64(sign(${asNumber(args[0]!).sql}))`, 'Integer', args),
  // Undefined inputs (a negative's root, a logarithm of 0) are NULL, as the PostgreSQL compiler answers.
  sqrt: defined('sqrt', (x) => `${x} >= 0`),
  cbrt: defined('cbrt', () => 'true'),
  exp: defined('exp', () => 'true'),
  log: defined('log', (x) => `${x} > 0`),
  ln: defined('log', (x) => `${x} > 0`),
  log2: defined('log2', (x) => `${x} > 0`),
  log10: defined('log10', (x) => `${x} > 0`),
  pow: power,
  power,
  greatest: ({ args }) => typed(`arrayReduce('max', [${sqlOf(args)}])`, args.find((arg) => arg.type !== 'Null')?.type ?? 'Null', args, { nullable: true }),
  least: ({ args }) => typed(`arrayReduce('min', [${sqlOf(args)}])`, args.find((arg) => arg.type !== 'Null')?.type ?? 'Null', args, { nullable: true }),

  JSONExtractString: json('JSONExtractString', 'String'),
  JSONExtractInt: json('JSONExtractInt', 'Integer'),
  JSONExtractUInt: json('JSONExtractUInt', 'Integer'),
  JSONExtractFloat: json('JSONExtractFloat', 'Float'),
  JSONExtractBool: json('JSONExtractBool', 'Boolean'),
  JSONExtractRaw: json('JSONExtractRaw', 'String'),
  JSONHas: json('JSONHas', 'Boolean'),
  JSONLength: json('JSONLength', 'Integer'),

  dateAdd: (call) => dateShift(call, '+'),
  dateSub: (call) => dateShift(call, '-'),
  date_add: (call) => dateShift(call, '+'),
  date_sub: (call) => dateShift(call, '-'),
  date_diff: (call) => FUNCTIONS.dateDiff!(call),
  ...Object.fromEntries(
    INTERVAL_UNITS.flatMap((unit) => {
      const name = unit[0]!.toUpperCase() + unit.slice(1);
      return [
        [`toInterval${name}`, ({ args }: CallArgs) => interval(unit, args[0]!)],
        [`add${name}s`, ({ args, env }: CallArgs) => arithmetic('+', args[0]!, interval(unit, args[1]!), env)],
        [`subtract${name}s`, ({ args, env }: CallArgs) => arithmetic('-', args[0]!, interval(unit, args[1]!), env)],
      ];
    }),
  ),
};

/** An interval of `n` units; a Date moved by one of whole days or more stays a Date. */
export function interval(unit: string, amount: Printed): Printed {
  const name = unit[0]!.toUpperCase() + unit.slice(1);
  return typed(`toInterval${name}(${asNumber(amount).sql})`, 'Interval', amount, { wholeDays: !['second', 'minute', 'hour'].includes(unit) });
}

/** dateAdd(unit, n, t) / dateAdd(t, interval), dateSub likewise. */
function dateShift({ args, env }: CallArgs, op: '+' | '-'): Printed {
  if (args.length === 2) return arithmetic(op, args[0]!, args[1]!, env);
  return arithmetic(op, args[2]!, interval(String(args[0]!.literal!.value).toLowerCase(), args[1]!), env);
}

function defined(fn: string, domain: (x: string) => string): FunctionPrinter {
  return ({ args }) => {
    const x = asNumber(args[0]!).sql;
    return typed(`if(${domain(x)}, ${fn}(${x}), NULL)`, 'Float', args, { nullable: true });
  };
}

function power({ args }: CallArgs): Printed {
  const [base, exponent] = args.map((arg) => asNumber(arg).sql);
  // A negative base to a fractional power is undefined: NULL, as the PostgreSQL compiler answers.
  return typed(`if(${base} < 0 AND ${exponent} != floor(${exponent}), NULL, pow(${base}, ${exponent}))`, 'Float', args, { nullable: true });
}

/** The JSON functions over a document (properties, or a property in them) and constant keys after it. */
function json(fn: string, type: Printed['type']): FunctionPrinter {
  return ({ args }) => {
    const [document, ...keys] = args;
    const at = document!.document ?? { text: document!.sql, keys: [] };
    const sql = `${fn}(${[at.text, ...at.keys, ...keys.map((key) => key.sql)].join(', ')})`;
    const wrapped = type === 'Integer' ? `toInt64(${sql})` : type === 'Boolean' ? `toBool(${sql})` : sql;
    return typed(wrapped, type, [], { nullable: false });
  };
}

function timeStart(fn: string): FunctionPrinter {
  return ({ args, env }) => typed(`${fn}(${asTimestamp(args[0]!, env).sql}, ${zone(env)})`, 'DateTime', args[0]!);
}

function dateStart(fn: string): FunctionPrinter {
  return ({ args, env }) => typed(`${fn}(${asTimestamp(args[0]!, env).sql}, ${zone(env)})`, 'Date', args[0]!);
}

function datePart(fn: string): FunctionPrinter {
  return ({ args, env }) => typed(`toInt64(${fn}(${asTimestamp(args[0]!, env).sql}, ${zone(env)}))`, 'Integer', args[0]!);
}

function text1(fn: string): FunctionPrinter {
  return ({ args }) => typed(`${fn}(${args[0]!.sql})`, 'String', args[0]!);
}

function math1(fn: string): FunctionPrinter {
  return ({ args }) => {
    const value = asNumber(args[0]!);
    return typed(`${fn}(${value.sql})`, value.type, value);
  };
}

/** A call the PostgreSQL compiler accepted (name, arity, place), printed as ClickHouse's function. */
export function callPrinted(node: HogQLNode, env: PrintEnv): Printed {
  const name = canonicalFunctionName(text(node, 'name'));
  const print = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
  if (!print) throw notYet(`function ${name}`);
  const filter = child(node, 'filter_expr');
  return print({
    args: children(node, 'args').map((arg) => (isKind(arg, 'Field') && chainOf(arg).join('.') === '*' ? { sql: '*', type: 'Unknown', nullable: false } : printExpr(arg, env))),
    params: children(node, 'params').map((param) => printExpr(param, env)),
    distinct: node.distinct === true,
    filter: filter ? printExpr(filter, env) : null,
    env,
  });
}

/** `x::type`: the conversion function of that name, as the PostgreSQL compiler reads a cast. */
export function castPrinted(node: HogQLNode, env: PrintEnv): Printed {
  const fn = CASTS[text(node, 'type_name').toLowerCase()]!;
  return callPrinted({ node: 'Call', name: fn, args: [required(node, 'expr')] }, env);
}
