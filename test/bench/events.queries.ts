/** A query of the events benchmark: its endpoint's name, its HogQL, and the rows it answers on the generated events. */
export interface BenchQuery {
  name: string;
  hogql: string;
  rows: number;
}

/** ../shared/bench/events-queries.md, word for word. */
export const BENCH_QUERIES: BenchQuery[] = [
  {
    name: 'trend_day_browser',
    hogql: "select toStartOfDay(timestamp) as day, properties.$browser as browser, count() as c from events where event = '$pageview' group by day, browser order by day limit 1000",
    rows: 732,
  },
  { name: 'uniq_users_week', hogql: 'select toStartOfWeek(timestamp) as w, uniq(distinct_id) as u from events group by w order by w limit 1000', rows: 53 },
  {
    name: 'top_urls_filtered',
    hogql: "select properties.$current_url as url, count() as c from events where properties.$browser = 'Chrome' and timestamp > now() - interval 90 day group by url order by c desc limit 10",
    rows: 10,
  },
  { name: 'count_all', hogql: 'select count() from events', rows: 1 },
];

/** The properties the queries read, which `npm run events:materialize` makes columns of. */
export const MATERIALIZED_PROPERTIES = ['$browser', '$current_url'];

/** Runs whose median is the figure: 11 up to a million events, 5 above, as the document measured. */
export function runsAt(size: number): number {
  return size <= 1_000_000 ? 11 : 5;
}

/** PostHog's daily page-view trend by browser over the whole year: the saved endpoint kept materialized (as endpoints.bench.ts). */
export const TREND_QUERY = {
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview' }],
  interval: 'day',
  dateRange: { date_from: '-400d' },
  breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
};
