import type { CompileOptions } from './hogql.types.js';

/**
 * The compiler's table of queries with their expected rows, and the rows they read: run on
 * PostgreSQL (compile/hogql.postgres.db.test.ts) and on ClickHouse
 * (clickhouse/clickhouse.printer.db.test.ts), which must give the same answers.
 */
/** A property's text with what JSON escapes in it (a quote, a backslash, a newline, a tab) and letters outside ASCII. */
const TEXT = 'é "q" \\ \n\t 😀';

export const HOGQL_ROWS = {
  persons: [
    { id: '11111111-1111-1111-1111-111111111111', created_at: '2024-01-01T00:00:00Z', properties: { email: 'ada@example.com', plan: 'pro' }, is_identified: true },
    { id: '22222222-2222-2222-2222-222222222222', created_at: '2024-01-02T00:00:00Z', properties: { email: 'bob@example.com' }, is_identified: false },
  ],
  distinctIds: [
    { distinct_id: 'd1', person_id: '11111111-1111-1111-1111-111111111111' },
    { distinct_id: 'd2', person_id: '11111111-1111-1111-1111-111111111111' },
    { distinct_id: 'd3', person_id: '22222222-2222-2222-2222-222222222222' },
  ],
  groups: [{ index: 0, key: 'acme', properties: { name: 'Acme', employees: 50 }, created_at: '2024-01-01T00:00:00Z', updated_at: '2024-02-01T00:00:00Z' }],
  events: [
    { uuid: 'aaaaaaaa-0000-0000-0000-000000000001', event: '$pageview', distinct_id: 'd1', timestamp: '2024-03-09T23:30:00Z', properties: { $browser: 'Chrome', n: 5, flag: true, nested: { a: { b: 'deep' } }, list: [1, 2, 3], v: TEXT } },
    { uuid: 'aaaaaaaa-0000-0000-0000-000000000002', event: '$pageview', distinct_id: 'd2', timestamp: '2024-03-10T03:00:00Z', properties: { $browser: 'Firefox', n: '7', flag: false, v: 1.5 } },
    { uuid: 'aaaaaaaa-0000-0000-0000-000000000003', event: '$pageview', distinct_id: 'd3', timestamp: '2024-03-11T12:00:00Z', properties: { $browser: 'Chrome', n: 'abc', v: null } },
    { uuid: 'aaaaaaaa-0000-0000-0000-000000000004', event: 'signup', distinct_id: 'd3', timestamp: '2024-03-11T13:00:00Z', properties: { plan: 'free', v: { x: [1, 'a'] } } },
    { uuid: 'aaaaaaaa-0000-0000-0000-000000000005', event: 'signup', distinct_id: 'd9', timestamp: '2024-03-12T00:30:00Z', properties: { v: '' } },
  ],
};

export interface HogQLCase {
  name: string;
  query: string;
  options?: Partial<CompileOptions>;
  rows: unknown[][];
  /**
   * ClickHouse's rows where they differ by what each engine keeps of JSON: PostgreSQL's jsonb
   * writes a raw value again with its own spacing, ClickHouse answers the text as it was sent.
   */
  clickhouseRows?: unknown[][];
  /** The query leaves the order of its rows open (a UNION's members meet in any order on ClickHouse): compared as sets. */
  unordered?: boolean;
}

/** Rows in one order, for comparing answers whose order the query leaves open. */
export function sortedRows(rows: unknown[][]): unknown[][] {
  return [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

const VARIABLES = {
  browsers: { value: ['Firefox', 'Safari'], type: 'List' as const },
  since: { value: '2024-03-11', type: 'Date' as const },
  who: { value: "d1' OR '1'='1", type: 'String' as const },
};

export const HOGQL_CASES: HogQLCase[] = [
  { name: 'answers one row without a table', query: 'select 1 + 1', rows: [[2]] },
  {
    name: 'reads CASE with an expression and searched CASE',
    query: "SELECT CASE event WHEN 'signup' THEN 'new' WHEN '$pageview' THEN 'view' ELSE 'other' END AS kind, CASE WHEN properties.n > 6 THEN 'big' ELSE 'small' END, count() FROM events GROUP BY 1, 2 ORDER BY 1, 2",
    rows: [['new', 'small', 2], ['view', 'big', 1], ['view', 'small', 2]],
  },
  { name: 'counts and groups', query: 'SELECT event, count() AS c FROM events GROUP BY event ORDER BY c DESC', rows: [['$pageview', 3], ['signup', 2]] },
  {
    name: 'reads properties as text, NULL when absent',
    query: 'SELECT properties.$browser, properties.nested.a.b, properties.flag FROM events ORDER BY timestamp LIMIT 2',
    rows: [['Chrome', 'deep', 'true'], ['Firefox', null, 'false']],
  },
  {
    // Every kind of value one key holds: text with escapes, a number, JSON null, an object, empty text.
    name: 'reads each kind of property value, by field and by key',
    query: "SELECT properties.v, properties['v'], properties.v IS NULL, properties.missing FROM events ORDER BY timestamp",
    rows: [[TEXT, TEXT, false, null], ['1.5', '1.5', false, null], [null, null, true, null], ['{"x": [1, "a"]}', '{"x": [1, "a"]}', false, null], ['', '', false, null]],
    clickhouseRows: [[TEXT, TEXT, false, null], ['1.5', '1.5', false, null], [null, null, true, null], ['{"x":[1,"a"]}', '{"x":[1,"a"]}', false, null], ['', '', false, null]],
  },
  {
    name: 'groups, orders and filters by a property',
    query: "SELECT e.properties.$browser AS b, count() FROM events e WHERE properties['$browser'] != 'Safari' OR properties.$browser IS NULL GROUP BY properties.$browser ORDER BY b DESC",
    rows: [['Firefox', 1], ['Chrome', 2], [null, 2]],
  },
  { name: 'compares a property with a number as the number it spells', query: 'SELECT count() FROM events WHERE properties.n > 6', rows: [[1]] },
  { name: 'sums properties as numbers, text that spells none as NULL', query: 'SELECT sum(properties.n), countIf(properties.flag = true) FROM events', rows: [[12, 1]] },
  { name: 'finds NULL unequal to a value', query: "SELECT count() FROM events WHERE properties.$browser != 'Chrome'", rows: [[3]] },
  { name: 'finds NULL not in a list', query: "SELECT count() FROM events WHERE properties.$browser NOT IN ('Chrome')", rows: [[3]] },
  {
    name: 'joins persons through their distinct ids, NULL for events without one',
    query: 'SELECT person.properties.email AS email, count() FROM events GROUP BY email ORDER BY email',
    rows: [['ada@example.com', 2], ['bob@example.com', 2], [null, 1]],
  },
  { name: 'joins persons by person_id', query: "SELECT count() FROM events e JOIN persons p ON p.id = e.person_id WHERE p.properties.plan = 'pro'", rows: [[2]] },
  {
    name: 'cuts days in UTC',
    query: "SELECT toDate(timestamp), toStartOfDay(timestamp) FROM events WHERE uuid = 'aaaaaaaa-0000-0000-0000-000000000002'",
    rows: [['2024-03-10', '2024-03-10T00:00:00Z']],
  },
  {
    name: 'cuts days in the team’s zone',
    query: "SELECT toDate(timestamp), toStartOfDay(timestamp) FROM events WHERE uuid = 'aaaaaaaa-0000-0000-0000-000000000002'",
    options: { timezone: 'America/New_York' },
    rows: [['2024-03-09', '2024-03-09T05:00:00Z']],
  },
  {
    name: 'counts the boundaries dateDiff crosses',
    query:
      "SELECT dateDiff('day', toDateTime('2024-01-01 23:59:00'), toDateTime('2024-01-02 00:01:00')), dateDiff('week', toDate('2024-03-09'), toDate('2024-03-11')), dateDiff('month', toDate('2024-01-31'), toDate('2024-02-01')), dateDiff('minute', toDateTime('2024-01-01 00:00:59'), toDateTime('2024-01-01 00:01:00'))",
    rows: [[1, 1, 1, 1]],
  },
  {
    name: 'starts weeks on Sunday by default and on Monday in mode 1',
    query: "SELECT toStartOfWeek(toDate('2024-03-13')), toStartOfWeek(toDate('2024-03-13'), 1), toMonday(toDate('2024-03-10'))",
    rows: [['2024-03-10', '2024-03-11', '2024-03-04']],
  },
  {
    name: 'answers NULL where ClickHouse’s conversions answer NULL',
    query: "SELECT toInt('12'), toInt('1.5'), toFloat('x'), toUUID('nope'), toDate('2024-02-30'), toDateTime('garbage'), 1 / 0, sqrt(-1)",
    rows: [[12, null, null, null, null, null, null, null]],
  },
  {
    name: 'answers ClickHouse’s defaults from the JSON functions',
    query: "SELECT JSONExtractString(properties, 'nested', 'a', 'b'), JSONExtractInt(properties, 'n'), JSONExtractRaw(properties, 'list'), JSONHas(properties, 'flag'), JSONExtractString(properties, 'missing'), JSONExtractInt(properties, 'list', 2) FROM events ORDER BY timestamp LIMIT 1",
    rows: [['deep', 5, '[1, 2, 3]', true, '', 2]],
    clickhouseRows: [['deep', 5, '[1,2,3]', true, '', 2]],
  },
  { name: 'binds a list variable', query: 'SELECT count() FROM events WHERE properties.$browser IN {browsers}', options: { variables: VARIABLES }, rows: [[1]] },
  { name: 'binds a date variable', query: 'SELECT count() FROM events WHERE timestamp >= {since}', options: { variables: VARIABLES }, rows: [[3]] },
  { name: 'binds text that looks like SQL', query: 'SELECT count() FROM events WHERE distinct_id = {who}', options: { variables: VARIABLES }, rows: [[0]] },
  {
    name: 'runs a CTE and a subquery',
    query: "WITH pv AS (SELECT distinct_id FROM events WHERE event = '$pageview') SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM pv)",
    rows: [[4]],
  },
  {
    name: 'sorts the last member of a UNION by a trailing ORDER BY, as ClickHouse',
    query: 'SELECT key FROM groups UNION ALL SELECT event FROM (SELECT DISTINCT event FROM events) ORDER BY 1',
    rows: [['acme'], ['$pageview'], ['signup']],
    unordered: true,
  },
  {
    name: 'runs window functions',
    query: 'SELECT event, row_number() OVER (PARTITION BY event ORDER BY timestamp DESC) AS r FROM events ORDER BY event, r LIMIT 2',
    rows: [['$pageview', 1], ['$pageview', 2]],
  },
];

/** A TrendsQuery through the same compiler: daily unique users of `$pageview` by browser. */
export const TRENDS_CASE = {
  query: {
    kind: 'TrendsQuery',
    series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }],
    interval: 'day',
    dateRange: { date_from: '2024-03-01', date_to: '2024-03-31' },
    breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
  },
  rows: [
    ['2024-03-09T00:00:00Z', 'Chrome', 1],
    ['2024-03-10T00:00:00Z', 'Firefox', 1],
    ['2024-03-11T00:00:00Z', 'Chrome', 1],
  ],
};

/** Every function the compiler maps, a SELECT list each: each runs on either engine. */
export const HOGQL_FUNCTION_LISTS = [
  'count(DISTINCT person_id), uniq(event), any(event), argMin(event, timestamp), median(properties.n), quantile(0.5)(properties.n), groupArray(event), min(uuid), max(properties.flag = \'true\')',
  "avgIf(properties.n, event = '$pageview'), minIf(timestamp, true), maxIf(event, true), uniqIf(event, true), countIf(event, true), sumIf(1, true), groupUniqArray(event)",
  "toStartOfHour(now()), toStartOfMinute(now()), toStartOfQuarter(now()), toStartOfYear(now()), toYear(now()), toQuarter(now()), toMonth(now()), toDayOfMonth(now()), toDayOfYear(now()), toHour(now()), toMinute(now()), toSecond(now()), toDayOfWeek(now(), 3), toUnixTimestamp(now())",
  "now() - INTERVAL 1 HOUR, today() + INTERVAL 1 WEEK, dateAdd('month', 1, now()), dateSub(now(), INTERVAL 1 YEAR), subtractDays(today(), 3), addMinutes(now(), 5), toDateTime(1700000000), toDateTime('2024-01-01', 'Asia/Tokyo')",
  "concat(event, 1, true, now(), today(), uuid, NULL), substring(event, -3), trimLeft(event), trimRight(event), replaceRegexpAll(event, '[a-z]', 'x'), replaceRegexpOne(event, 'e', 'E'), positionCaseInsensitive(event, 'VIEW'), empty(event), notEmpty(event), reverse(event), repeat('ab', 3)",
  "JSONExtractFloat(properties, 'n'), JSONExtractUInt(properties, 'n'), JSONLength(properties, 'list'), JSONLength(properties), toBool('true'), toBool(1), toString(today()), toString(1.5), toFloat(properties.n), toInt(timestamp), toInt(today())",
  "round(1.234, 1), floor(1.5, 0), ceil(1.2), abs(-1.5), sign(-2), exp(1), log(1), ln(2), log2(8), log10(100), pow(2, 10), power(-8, 0.5), cbrt(27), least(1, 2), greatest(today(), toDate('2020-01-01'))",
  "has([1, 2], 2), 1 IN (1, 2.5), event IN (SELECT event FROM events), exists(SELECT 1), if(true, 1, 2.5), nullIf(1, 1), assumeNotNull(1), toNullable(1), properties.flag = true, NOT (event = 'x') OR false",
  "lagInFrame(event) OVER (ORDER BY timestamp), leadInFrame(event, 2) OVER (ORDER BY timestamp), rank() OVER (ORDER BY event), dense_rank() OVER (ORDER BY event), first_value(event) OVER (), last_value(event) OVER (), nth_value(event, 2) OVER (), count() OVER (), avg(properties.n) OVER (), ntile(2) OVER (ORDER BY timestamp)",
];
