import { alias, and, call, compare, constant, field, orderBy, selectQuery, unionAll } from '../parse/hogql.builders.js';
import { HogQLError } from '../hogql.errors.js';
import { MAX_LIMIT } from '../hogql.limits.js';
import type { HogQLNode } from '../hogql.types.js';
import { dateRangeBucketsQuery, dateRangeConditions, type TrendsInterval } from './trends.dates.js';
import { propertiesCondition, propertyField } from './trends.properties.js';

/** PostHog's TrendsQuery, the fields read here (frontend/src/queries/schema: TrendsQuery, EventsNode). */
export interface TrendsQueryNode {
  kind: 'TrendsQuery';
  series: { kind: 'EventsNode'; event?: string | null; math?: string; math_property?: string; properties?: unknown }[];
  interval?: TrendsInterval;
  dateRange?: { date_from?: string | null; date_to?: string | null };
  breakdownFilter?: { breakdown?: string | null; breakdown_type?: string | null };
  properties?: unknown;
}

const INTERVALS: TrendsInterval[] = ['minute', 'hour', 'day', 'week', 'month'];
const BUCKETS: Record<TrendsInterval, string> = {
  minute: 'toStartOfMinute',
  hour: 'toStartOfHour',
  day: 'toStartOfDay',
  week: 'toStartOfWeek',
  month: 'toStartOfMonth',
};
/** Maths over a numeric property (`math_property`), and the aggregation each is. */
const PROPERTY_MATHS: Record<string, (value: HogQLNode) => HogQLNode> = {
  sum: (value) => call('sum', [value]),
  avg: (value) => call('avg', [value]),
  min: (value) => call('min', [call('toFloat', [value])]),
  max: (value) => call('max', [call('toFloat', [value])]),
  median: (value) => call('median', [value]),
  p75: (value) => call('quantile', [value], { params: [constant(0.75)] }),
  p90: (value) => call('quantile', [value], { params: [constant(0.9)] }),
  p95: (value) => call('quantile', [value], { params: [constant(0.95)] }),
  p99: (value) => call('quantile', [value], { params: [constant(0.99)] }),
};

/**
 * A TrendsQuery as a HogQL AST compiled by the same compiler: per series, the events of the date
 * range counted per interval (and per breakdown value). One flat table: a row per (interval,
 * breakdown value), columns `<interval>` (e.g. `day`), `breakdown_value` with a breakdown, and
 * `count` (`value` when a series takes a property math), led by `series` (its index) when there
 * are several series. Buckets without events have no row.
 */
export function trendsToHogQL(query: TrendsQueryNode | Record<string, unknown>): HogQLNode {
  const node = query as Record<string, unknown>;
  if (node.kind !== 'TrendsQuery') throw new HogQLError(`Unsupported query kind: ${String(node.kind)}`);
  const interval = intervalOf(node.interval);
  const series = seriesOf(node.series);
  const breakdown = breakdownOf(node.breakdownFilter);
  const measure = series.some((item) => item.math !== undefined && Object.hasOwn(PROPERTY_MATHS, String(item.math))) ? 'value' : 'count';
  const shared = [...dateRangeConditions(recordOf(node.dateRange), interval), propertiesCondition(node.properties)];
  const queries = series.map((item, index) => {
    const columns = [
      ...(series.length > 1 ? [alias('series', constant(index))] : []),
      alias(interval, call(BUCKETS[interval], [field('timestamp')])),
      ...(breakdown ? [alias('breakdown_value', breakdown)] : []),
      alias(measure, aggregation(item)),
    ];
    const where = and([eventCondition(item.event), ...shared, propertiesCondition(item.properties)].filter((part): part is HogQLNode => part !== null));
    const keys = [field(interval), ...(breakdown ? [field('breakdown_value')] : [])];
    return selectQuery({ select: columns, from: 'events', where, groupBy: keys, orderBy: keys.map((key) => orderBy(key)), limit: MAX_LIMIT });
  });
  if (queries.length === 1) return queries[0]!;
  const order = [field('series'), field(interval), ...(breakdown ? [field('breakdown_value')] : [])].map((key) => orderBy(key));
  return unionAll(queries, order, MAX_LIMIT);
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function intervalOf(value: unknown): TrendsInterval {
  if (value === undefined || value === null) return 'day';
  if (!INTERVALS.includes(value as TrendsInterval)) throw new HogQLError(`Unsupported interval: ${String(value)} (expected ${INTERVALS.join(', ')})`);
  return value as TrendsInterval;
}

type Series = TrendsQueryNode['series'][number];

function seriesOf(value: unknown): Series[] {
  if (!Array.isArray(value) || value.length === 0) throw new HogQLError('A TrendsQuery needs at least one series');
  return value.map((item) => {
    const series = recordOf(item);
    if (series.kind !== 'EventsNode') throw new HogQLError(`Unsupported series kind: ${String(series.kind)} (EventsNode is supported)`);
    return series as unknown as Series;
  });
}

function eventCondition(event: unknown): HogQLNode | null {
  if (event === null || event === undefined) return null;
  if (typeof event !== 'string') throw new HogQLError('A series event must be a string (or null for all events)');
  return compare('==', field('event'), constant(event));
}

/** PostHog's maths: total (events), dau (unique persons), unique_session, and maths over a property. */
function aggregation(series: Series): HogQLNode {
  const math = series.math ?? 'total';
  if (math === 'total') return call('count', []);
  if (math === 'dau') return call('count', [field('person_id')], { distinct: true });
  if (math === 'unique_session') return call('count', [field('properties', '$session_id')], { distinct: true });
  const ofProperty = Object.hasOwn(PROPERTY_MATHS, math) ? PROPERTY_MATHS[math] : undefined;
  if (!ofProperty) throw new HogQLError(`Unsupported math: ${math}`);
  return ofProperty(propertyField('event', series.math_property, `${math} math_property`));
}

function breakdownOf(value: unknown): HogQLNode | null {
  const filter = recordOf(value);
  if (Array.isArray(filter.breakdowns) && filter.breakdowns.length > 0) throw new HogQLError('Multiple breakdowns are not supported: use breakdown');
  if (filter.breakdown === null || filter.breakdown === undefined || filter.breakdown === '') return null;
  return propertyField(filter.breakdown_type ?? 'event', filter.breakdown, 'breakdown');
}

/** The first and last bucket of a TrendsQuery's date range (a query of its own; see dateRangeBucketsQuery). */
export function trendsBucketsQuery(query: Record<string, unknown>): HogQLNode {
  const interval = intervalOf(query.interval);
  return dateRangeBucketsQuery(recordOf(query.dateRange), interval, BUCKETS[interval]);
}
