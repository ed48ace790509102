import { asTimestamp, localTimeSql, typed } from '../compile/hogql.coerce.js';
import { HogQLError } from '../hogql.errors.js';
import type { Call } from './hogql.functions.js';
import type { Expr } from '../hogql.types.js';

/** ClickHouse's spellings of dateDiff units. */
const UNITS: Record<string, string> = {
  second: 'second', seconds: 'second', ss: 'second', s: 'second',
  minute: 'minute', minutes: 'minute', mi: 'minute', n: 'minute',
  hour: 'hour', hours: 'hour', hh: 'hour', h: 'hour',
  day: 'day', days: 'day', dd: 'day', d: 'day',
  week: 'week', weeks: 'week', wk: 'week', ww: 'week',
  month: 'month', months: 'month', mm: 'month', m: 'month',
  quarter: 'quarter', quarters: 'quarter', qq: 'quarter', q: 'quarter',
  year: 'year', years: 'year', yyyy: 'year', yy: 'year',
};

/** The number of a unit counted from a fixed point, for a wall-clock time (SQL of a timestamp). */
const ORDINALS: Record<string, (local: string) => string> = {
  hour: (local) => `floor(extract(epoch from date_trunc('hour', ${local})) / 3600)`,
  day: (local) => `(${local})::date`,
  // Weeks start on Monday, as ClickHouse's toRelativeWeekNum counts them.
  week: (local) => `(((${local})::date - (extract(isodow from ${local})::int - 1)) - date '1970-01-05') / 7`,
  month: (local) => `(extract(year from ${local}) * 12 + extract(month from ${local}))`,
  quarter: (local) => `(extract(year from ${local}) * 4 + extract(quarter from ${local}))`,
  year: (local) => `extract(year from ${local})`,
};

/**
 * dateDiff(unit, a, b): the unit boundaries crossed from a to b (ClickHouse's semantics, not the
 * time elapsed): dateDiff('day', '2024-01-01 23:59', '2024-01-02 00:01') is 1. Days and longer units
 * are cut in the team's zone; seconds and minutes count from the epoch.
 */
export function dateDiff(call: Call): Expr {
  const raw = call.args[0]!.literal?.value;
  const unit = typeof raw === 'string' && Object.hasOwn(UNITS, raw.toLowerCase()) ? UNITS[raw.toLowerCase()] : undefined;
  if (!unit) throw new HogQLError(`${call.name} expects a unit (second, minute, hour, day, week, month, quarter, year) as its first argument`);
  const [from, to] = [call.args[1]!, call.args[2]!];
  if (unit === 'second' || unit === 'minute') {
    const epoch = (value: Expr): string => `floor(extract(epoch from ${asTimestamp(value, call.env, call.name).sql}) / ${unit === 'second' ? 1 : 60})`;
    return typed(`(${epoch(to)} - ${epoch(from)})::bigint`, 'Integer', [from, to]);
  }
  const ordinal = ORDINALS[unit]!;
  const [a, b] = [localTimeSql(from, call.env, call.name), localTimeSql(to, call.env, call.name)];
  return typed(`(${ordinal(b)} - ${ordinal(a)})::bigint`, 'Integer', [from, to]);
}
