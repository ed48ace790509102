import type { HogQLType } from '../hogql/hogql.types.js';

/** One series of a trends answer, in PostHog's shape (`results` of a TrendsQuery). */
export interface TrendSeries {
  action: { id: string | null; type: 'events'; order: number; name: string; custom_name: string | null; math: string };
  label: string;
  count: number;
  data: number[];
  labels: string[];
  days: string[];
  breakdown_value?: unknown;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

interface SeriesNode {
  event?: string | null;
  custom_name?: string | null;
  math?: string | null;
}

/**
 * The flat table the compiler answers for a TrendsQuery (`[series,] <interval>, [breakdown_value,]
 * count|value`) as PostHog's series: one per series and breakdown value, each with `data`, `days`
 * and `labels` over the same buckets (every bucket any series has; a bucket without events in a
 * series is 0 there), breakdown values by count, largest first.
 */
export function trendsResults(
  node: Record<string, unknown>,
  columns: { name: string; type: HogQLType }[],
  rows: unknown[][],
  timezone = 'UTC',
  range: BucketRange = { first: null, last: null },
): TrendSeries[] {
  const names = columns.map((column) => column.name);
  const seriesAt = names.indexOf('series');
  const bucketAt = seriesAt === 0 ? 1 : 0;
  const breakdownAt = names.indexOf('breakdown_value');
  const valueAt = names.length - 1;
  const interval = String(node.interval ?? 'day');
  const hourly = ['hour', 'minute'].includes(interval);
  // Buckets by the environment's clock: `YYYY-MM-DD`, or `YYYY-MM-DD HH:MM:SS` for hourly trends.
  const keyOf = (bucket: unknown) => day(wallClock(String(bucket), timezone), hourly);
  const seen = rows.map((row) => keyOf(row[bucketAt])).sort();
  const first = range.first !== null ? keyOf(range.first) : seen[0];
  const last = range.last !== null ? keyOf(range.last) : seen.at(-1);
  const buckets = first !== undefined && last !== undefined ? everyBucket(first, last, interval) : [];
  const groups = new Map<string, { series: number; breakdown: unknown; values: Map<string, number> }>();
  const nodes = (Array.isArray(node.series) ? node.series : []) as SeriesNode[];
  // Without a breakdown every series is answered, all zeros when it had no events (as PostHog's).
  if (breakdownAt < 0) nodes.forEach((_, series) => groups.set(JSON.stringify([series, undefined]), { series, breakdown: undefined, values: new Map() }));
  for (const row of rows) {
    const series = seriesAt >= 0 ? Number(row[seriesAt]) : 0;
    const breakdown = breakdownAt >= 0 ? row[breakdownAt] : undefined;
    const key = JSON.stringify([series, breakdown]);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { series, breakdown, values: new Map() }));
    group.values.set(keyOf(row[bucketAt]), Number(row[valueAt] ?? 0));
  }
  const days = buckets;
  const labels = buckets.map((bucket) => label(bucket, hourly));
  const answer = [...groups.values()].map((group) => {
    const data = buckets.map((bucket) => group.values.get(bucket) ?? 0);
    const series = nodes[group.series] ?? {};
    const name = series.event ?? 'All events';
    const item: TrendSeries = {
      action: { id: series.event ?? null, type: 'events', order: group.series, name, custom_name: series.custom_name ?? null, math: series.math ?? 'total' },
      label: series.custom_name ?? name,
      count: data.reduce((sum, value) => sum + value, 0),
      data,
      labels,
      days,
    };
    if (breakdownAt >= 0) item.breakdown_value = group.breakdown;
    return item;
  });
  return answer.sort((a, b) => a.action.order - b.action.order || b.count - a.count);
}

/** The first and last bucket of the query's date range, as the compiler answers them (null: from the data). */
export interface BucketRange {
  first: unknown;
  last: unknown;
}

/** Most buckets answered (a daily trend over a century): a longer range is cut there. */
const MAX_BUCKETS = 50_000;
const STEP_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 };

/** Every bucket from `first` to `last` (clock-read keys), by calendar: days, weeks, months, hours or minutes. */
function everyBucket(first: string, last: string, interval: string): string[] {
  const hourly = first.length > 10;
  const toTime = (key: string) => Date.parse(`${hourly ? key.replace(' ', 'T') : `${key}T00:00:00`}Z`);
  const toKey = (time: number) => day(new Date(time).toISOString().replace('T', ' ').slice(0, 19), hourly);
  const buckets: string[] = [];
  for (let time = toTime(first), end = toTime(last); time <= end && buckets.length < MAX_BUCKETS; ) {
    buckets.push(toKey(time));
    if (interval === 'month') {
      const date = new Date(time);
      time = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    } else {
      time += (Object.hasOwn(STEP_MS, interval) ? STEP_MS[interval] : undefined) ?? STEP_MS.day!;
    }
  }
  return buckets;
}

/**
 * A bucket as the environment's clock reads it (`YYYY-MM-DD HH:MM:SS`): a day bucket is the instant
 * of local midnight, answered in UTC; week and month buckets are dates already.
 */
function wallClock(bucket: string, timezone: string): string {
  if (!bucket.includes('T')) return bucket;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(bucket))
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** PostHog's `days`: the bucket's date, with its time for hourly trends. */
function day(bucket: string, hourly: boolean): string {
  return hourly ? bucket.slice(0, 19) : bucket.slice(0, 10);
}

/** PostHog's `labels`: `5-Jan-2026`, or `5-Jan 10:00` for hourly trends. */
function label(bucket: string, hourly: boolean): string {
  const [year, month, date] = bucket.slice(0, 10).split('-').map(Number) as [number, number, number];
  const head = `${date}-${MONTHS[month - 1]}`;
  return hourly ? `${head} ${bucket.slice(11, 16)}` : `${head}-${year}`;
}
