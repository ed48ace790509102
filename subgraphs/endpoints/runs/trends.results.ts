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
export function trendsResults(node: Record<string, unknown>, columns: { name: string; type: HogQLType }[], rows: unknown[][], timezone = 'UTC'): TrendSeries[] {
  const names = columns.map((column) => column.name);
  const seriesAt = names.indexOf('series');
  const bucketAt = seriesAt === 0 ? 1 : 0;
  const breakdownAt = names.indexOf('breakdown_value');
  const valueAt = names.length - 1;
  const hourly = ['hour', 'minute'].includes(String(node.interval ?? 'day'));
  const buckets = [...new Set(rows.map((row) => String(row[bucketAt])))].sort();
  const groups = new Map<string, { series: number; breakdown: unknown; values: Map<string, number> }>();
  for (const row of rows) {
    const series = seriesAt >= 0 ? Number(row[seriesAt]) : 0;
    const breakdown = breakdownAt >= 0 ? row[breakdownAt] : undefined;
    const key = JSON.stringify([series, breakdown]);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { series, breakdown, values: new Map() }));
    group.values.set(String(row[bucketAt]), Number(row[valueAt] ?? 0));
  }
  const nodes = (Array.isArray(node.series) ? node.series : []) as SeriesNode[];
  const local = buckets.map((bucket) => wallClock(bucket, timezone));
  const days = local.map((bucket) => day(bucket, hourly));
  const labels = local.map((bucket) => label(bucket, hourly));
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
