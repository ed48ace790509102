import { alias, arithmetic, call, compare, constant, field } from '../parse/hogql.builders.js';
import { readDateTimeText } from '../compile/hogql.datetime.js';
import { HogQLError } from '../hogql.errors.js';
import type { HogQLNode } from '../hogql.types.js';

export type TrendsInterval = 'minute' | 'hour' | 'day' | 'week' | 'month';

/** PostHog's relative date units: `-7d`, `-24h`, `-2w`, `-3m`, `-1q`, `-1y`. */
const UNITS: Record<string, string> = { h: 'Hour', d: 'Day', w: 'Week', m: 'Month', q: 'Quarter', y: 'Year' };
/** `dStart`, `wStart`, `mStart`, `qStart`, `yStart`: the start of the current unit. */
const STARTS: Record<string, string> = { d: 'toStartOfDay', w: 'toStartOfWeek', m: 'toStartOfMonth', q: 'toStartOfQuarter', y: 'toStartOfYear' };

const RELATIVE = /^-?(\d{1,5})([hdwmqy])$/;
const START = /^([dwmqy])Start$/;

/** The day (or hour, for hourly trends) a relative bound falls in: PostHog starts ranges at its start. */
function startOfBucket(expr: HogQLNode, interval: TrendsInterval): HogQLNode {
  return call(interval === 'hour' || interval === 'minute' ? 'toStartOfHour' : 'toStartOfDay', [expr]);
}

/** A relative or absolute date as a point in time (null for an absolute text, read by the caller). */
function relative(text: string): HogQLNode | null {
  const match = RELATIVE.exec(text);
  if (match) return arithmetic('-', call('now', []), call(`toInterval${UNITS[match[2]!]}`, [constant(Number(match[1]))]));
  const start = START.exec(text);
  if (start) return call(STARTS[start[1]!]!, [call('now', [])]);
  return null;
}

function absolute(text: string, key: string): { at: HogQLNode; dateOnly: boolean } {
  const read = readDateTimeText(text);
  if (!read) throw new HogQLError(`Invalid ${key}: ${text} (expected e.g. -7d, mStart, 2024-01-31 or 2024-01-31T10:00:00)`);
  return { at: call('toDateTime', [constant(text)]), dateOnly: !/[ T]/.test(text.trim()) };
}

/**
 * The conditions on `timestamp` of a date range, as PostHog's QueryDateRange draws it: from the
 * start of the day (or hour) `date_from` falls in, `-7d` by default, `all` for no start; up to the
 * end of the day (or hour) `date_to` falls in, now by default.
 */
export function dateRangeConditions(range: Record<string, unknown>, interval: TrendsInterval): HogQLNode[] {
  const timestamp = field('timestamp');
  const from = typeof range.date_from === 'string' && range.date_from ? range.date_from : '-7d';
  const to = typeof range.date_to === 'string' && range.date_to ? range.date_to : null;
  const conditions: HogQLNode[] = [];
  if (from !== 'all') {
    const start = relative(from);
    conditions.push(compare('>=', timestamp, start ? startOfBucket(start, interval) : absolute(from, 'date_from').at));
  }
  conditions.push(upperBound(to, interval));
  return conditions;
}

function upperBound(to: string | null, interval: TrendsInterval): HogQLNode {
  const timestamp = field('timestamp');
  const unit = interval === 'hour' || interval === 'minute' ? 'Hour' : 'Day';
  const endOf = (expr: HogQLNode): HogQLNode => arithmetic('+', startOfBucket(expr, interval), call(`toInterval${unit}`, [constant(1)]));
  if (to === null) return compare('<', timestamp, endOf(call('now', [])));
  const relativeEnd = relative(to);
  if (relativeEnd) return compare('<', timestamp, endOf(relativeEnd));
  const { at, dateOnly } = absolute(to, 'date_to');
  return dateOnly ? compare('<', timestamp, arithmetic('+', at, call('toIntervalDay', [constant(1)]))) : compare('<=', timestamp, at);
}

/**
 * A query (no table) answering the first and the last bucket of a date range in the team's zone:
 * `first` is NULL for `all`. PostHog fills every bucket of the range; the caller does the same.
 */
export function dateRangeBucketsQuery(range: Record<string, unknown>, interval: TrendsInterval, bucket: string): HogQLNode {
  const conditions = dateRangeConditions(range, interval);
  const lower = conditions.length > 1 ? (conditions[0]!.right as HogQLNode) : null;
  const upper = conditions.at(-1)! as unknown as { op: string; right: HogQLNode };
  // An exclusive bound's bucket is the one before it.
  const last = upper.op === '<' ? arithmetic('-', upper.right, call('toIntervalSecond', [constant(1)])) : upper.right;
  return {
    node: 'SelectQuery',
    select: [alias('first', lower ? call(bucket, [lower]) : constant(null)), alias('last', call(bucket, [last]))],
    select_from: null,
  };
}
