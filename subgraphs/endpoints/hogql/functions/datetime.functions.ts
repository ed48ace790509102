import { arithmetic } from '../compile/hogql.arithmetic.js';
import { asNumber, asTimestamp, localTimeSql, typed } from '../compile/hogql.coerce.js';
import { zoneSql } from '../compile/hogql.context.js';
import { dateDiff } from './hogql.datediff.js';
import { HogQLError } from '../hogql.errors.js';
import type { Call, FunctionDef, FunctionTable } from './hogql.functions.js';
import type { Expr } from '../hogql.types.js';

/** Interval units: the PostgreSQL interval of one unit, and whether it is whole days or longer. */
export const INTERVAL_UNITS: Record<string, { sql: string; wholeDays: boolean }> = {
  second: { sql: "interval '1 second'", wholeDays: false },
  minute: { sql: "interval '1 minute'", wholeDays: false },
  hour: { sql: "interval '1 hour'", wholeDays: false },
  day: { sql: "interval '1 day'", wholeDays: true },
  week: { sql: "interval '1 week'", wholeDays: true },
  month: { sql: "interval '1 month'", wholeDays: true },
  quarter: { sql: "interval '3 months'", wholeDays: true },
  year: { sql: "interval '1 year'", wholeDays: true },
};

export function intervalOf(unit: string, amount: Expr, what: string): Expr {
  const { sql, wholeDays } = INTERVAL_UNITS[unit]!;
  return typed(`((${asNumber(amount, what).sql}) * ${sql})`, 'Interval', amount, { wholeDays });
}

/** toStartOfHour & co.: the start of the unit in the team's zone, a DateTime. */
function truncated(unit: string): FunctionDef {
  return {
    args: [1, 1],
    compile: (call) => {
      const time = asTimestamp(call.args[0]!, call.env, call.name);
      return typed(`date_trunc('${unit}', ${time.sql}, ${zoneSql(call.env)})`, 'DateTime', time);
    },
  };
}

/** toStartOfMonth & co.: the first day of the unit in the team's zone, a Date (as ClickHouse's). */
function truncatedDate(unit: string): FunctionDef {
  return {
    args: [1, 1],
    compile: (call) => typed(`date_trunc('${unit}', ${localTimeSql(call.args[0]!, call.env, call.name)})::date`, 'Date', call.args),
  };
}

/**
 * toStartOfWeek(t[, mode]): ClickHouse's modes, even ones starting weeks on Sunday (mode 0, the
 * default, which PostHog keeps for teams whose week starts on Sunday), odd ones on Monday.
 */
function startOfWeek(call: Call, mode: unknown = call.args[1]?.literal?.value ?? 0): Expr {
  if (typeof mode !== 'number' || !Number.isInteger(mode) || mode < 0 || mode > 9) throw new HogQLError(`${call.name} expects a week mode from 0 to 9`);
  const local = localTimeSql(call.args[0]!, call.env, call.name);
  const sql = mode % 2 === 1 ? `date_trunc('week', ${local})::date` : `(${local}::date - extract(dow from ${local})::int)`;
  return typed(sql, 'Date', call.args[0]!);
}

/** toYear & co.: a part of the date or time in the team's zone. */
function part(field: string): FunctionDef {
  return { args: [1, 1], compile: (call) => typed(`floor(extract(${field} from ${localTimeSql(call.args[0]!, call.env, call.name)}))::int`, 'Integer', call.args) };
}

/** toDayOfWeek(t[, mode]): mode 0 Monday=1..Sunday=7, 1 Monday=0..Sunday=6, 2 Sunday=0..Saturday=6, 3 Sunday=1..Saturday=7. */
function dayOfWeek(call: Call): Expr {
  const mode = call.args[1]?.literal?.value ?? 0;
  if (mode !== 0 && mode !== 1 && mode !== 2 && mode !== 3) throw new HogQLError(`${call.name} expects a mode from 0 to 3`);
  const local = localTimeSql(call.args[0]!, call.env, call.name);
  const sql = [`extract(isodow from ${local})`, `extract(isodow from ${local}) - 1`, `extract(dow from ${local})`, `extract(dow from ${local}) + 1`][mode];
  return typed(`(${sql})::int`, 'Integer', call.args[0]!);
}

/** dateAdd(unit, n, t) / dateAdd(t, interval), and dateSub likewise. */
function dateShift(call: Call, op: '+' | '-'): Expr {
  if (call.args.length === 2) return arithmetic(op, call.args[0]!, call.args[1]!, call.env);
  const unit = call.args[0]!.literal?.value;
  if (typeof unit !== 'string' || !Object.hasOwn(INTERVAL_UNITS, unit.toLowerCase())) {
    throw new HogQLError(`${call.name} expects a unit (${Object.keys(INTERVAL_UNITS).join(', ')}) as its first argument`);
  }
  return arithmetic(op, call.args[2]!, intervalOf(unit.toLowerCase(), call.args[1]!, call.name), call.env);
}

/** addDays(t, n) & co. */
function shiftBy(unit: string, op: '+' | '-'): FunctionDef {
  return { args: [2, 2], compile: (call) => arithmetic(op, call.args[0]!, intervalOf(unit, call.args[1]!, call.name), call.env) };
}

function today(call: Call): Expr {
  return typed(`(now() AT TIME ZONE ${zoneSql(call.env)})::date`, 'Date', [], { nullable: false });
}

const capitalized = (unit: string): string => unit[0]!.toUpperCase() + unit.slice(1);

/** Dates and times (PostHog's functions/clickhouse/datetime.py), cut in the team's zone. */
export const DATETIME_FUNCTIONS: FunctionTable = {
  now: { args: [0, 0], compile: () => ({ sql: 'now()', type: 'DateTime', nullable: false }) },
  today: { args: [0, 0], compile: today },
  yesterday: { args: [0, 0], compile: (call) => typed(`(${today(call).sql} - 1)`, 'Date', [], { nullable: false }) },
  toStartOfMinute: truncated('minute'),
  toStartOfHour: truncated('hour'),
  toStartOfDay: truncated('day'),
  toStartOfWeek: { args: [1, 2], compile: (call) => startOfWeek(call) },
  toMonday: { args: [1, 1], compile: (call) => startOfWeek(call, 1) },
  toStartOfMonth: truncatedDate('month'),
  toStartOfQuarter: truncatedDate('quarter'),
  toStartOfYear: truncatedDate('year'),
  toYear: part('year'),
  toQuarter: part('quarter'),
  toMonth: part('month'),
  toDayOfMonth: part('day'),
  toDayOfYear: part('doy'),
  toHour: part('hour'),
  toMinute: part('minute'),
  toSecond: part('second'),
  toDayOfWeek: { args: [1, 2], compile: dayOfWeek },
  toUnixTimestamp: {
    args: [1, 1],
    compile: (call) => typed(`floor(extract(epoch from ${asTimestamp(call.args[0]!, call.env, call.name).sql}))::bigint`, 'Integer', call.args),
  },
  dateDiff: { args: [3, 3], compile: dateDiff },
  date_diff: { args: [3, 3], compile: dateDiff },
  dateAdd: { args: [2, 3], compile: (call) => dateShift(call, '+') },
  dateSub: { args: [2, 3], compile: (call) => dateShift(call, '-') },
  date_add: { args: [2, 2], compile: (call) => dateShift(call, '+') },
  date_sub: { args: [2, 2], compile: (call) => dateShift(call, '-') },
  ...Object.fromEntries(
    Object.keys(INTERVAL_UNITS).flatMap((unit) => [
      [`toInterval${capitalized(unit)}`, { args: [1, 1], compile: (call: Call) => intervalOf(unit, call.args[0]!, call.name) }],
      [`add${capitalized(unit)}s`, shiftBy(unit, '+')],
      [`subtract${capitalized(unit)}s`, shiftBy(unit, '-')],
    ]),
  ),
};
