import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropDatabase } from '../../../shared/db/database.js';
import { compileHogQL, type CompileOptions } from './hogql.compiler.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';
import { trendsToHogQL } from '../trends/trends.query.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

/** Tables shaped as the query views (plain tables will do: the views filter by team, we need none here). */
const SCHEMA = `
  create schema ingestion;
  create table ingestion.hogql_events (uuid uuid not null, event text not null, distinct_id text not null, "timestamp" timestamptz not null, properties jsonb not null, created_at timestamptz not null default now());
  create table ingestion.hogql_person_distinct_ids (distinct_id text not null, person_id uuid not null);
  create table ingestion.hogql_persons (id uuid not null, created_at timestamptz not null, properties jsonb not null, is_identified boolean not null);
  create table ingestion.hogql_groups (index int not null, key text not null, properties jsonb not null, created_at timestamptz not null, updated_at timestamptz not null);
  insert into ingestion.hogql_persons values
    ('11111111-1111-1111-1111-111111111111', '2024-01-01', '{"email": "ada@example.com", "plan": "pro"}', true),
    ('22222222-2222-2222-2222-222222222222', '2024-01-02', '{"email": "bob@example.com"}', false);
  insert into ingestion.hogql_person_distinct_ids values
    ('d1', '11111111-1111-1111-1111-111111111111'), ('d2', '11111111-1111-1111-1111-111111111111'), ('d3', '22222222-2222-2222-2222-222222222222');
  insert into ingestion.hogql_groups values (0, 'acme', '{"name": "Acme", "employees": 50}', '2024-01-01', '2024-02-01');
  insert into ingestion.hogql_events values
    ('aaaaaaaa-0000-0000-0000-000000000001', '$pageview', 'd1', '2024-03-09 23:30:00+00', '{"$browser": "Chrome", "n": 5, "flag": true, "nested": {"a": {"b": "deep"}}, "list": [1, 2, 3]}'),
    ('aaaaaaaa-0000-0000-0000-000000000002', '$pageview', 'd2', '2024-03-10 03:00:00+00', '{"$browser": "Firefox", "n": "7", "flag": false}'),
    ('aaaaaaaa-0000-0000-0000-000000000003', '$pageview', 'd3', '2024-03-11 12:00:00+00', '{"$browser": "Chrome", "n": "abc"}'),
    ('aaaaaaaa-0000-0000-0000-000000000004', 'signup', 'd3', '2024-03-11 13:00:00+00', '{"plan": "free"}'),
    ('aaaaaaaa-0000-0000-0000-000000000005', 'signup', 'd9', '2024-03-12 00:30:00+00', '{}');
`;

// Values as the endpoint runner answers them: numbers as numbers, dates and times as text.
const PARSERS: Record<number, (text: string) => unknown> = {
  20: Number,
  1700: Number,
  1082: (text) => text,
  1184: (text) => new Date(text.replace(' ', 'T').replace(/\+00$/, 'Z')).toISOString(),
};

let url: string;
let client: pg.Client;

beforeAll(async () => {
  url = await createScratchDatabase(inject('databaseUrl'), 'hogql_compiler');
  client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(SCHEMA);
  await client.query("set timezone = 'UTC'");
});

afterAll(async () => {
  await client?.end();
  if (url) await dropDatabase(url);
});

async function rows(query: string, options: Partial<CompileOptions> = {}): Promise<unknown[][]> {
  return run(compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, query), { variables: {}, ...options }));
}

async function run(compiled: { sql: string; values: unknown[]; limit: number }): Promise<unknown[][]> {
  const types = { getTypeParser: ((oid: number, format?: string) => PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as never };
  const result = await client.query({ text: compiled.sql, values: compiled.values, rowMode: 'array', types });
  return (result.rows as unknown[][]).slice(0, compiled.limit);
}

describe('compileHogQL on PostgreSQL', () => {
  it('counts and groups', async () => {
    expect(await rows('SELECT event, count() AS c FROM events GROUP BY event ORDER BY c DESC')).toEqual([
      ['$pageview', 3],
      ['signup', 2],
    ]);
  });

  it('reads properties as text, NULL when absent, and compares them as numbers without failing on text', async () => {
    expect(await rows('SELECT properties.$browser, properties.nested.a.b, properties.flag FROM events ORDER BY timestamp LIMIT 2')).toEqual([
      ['Chrome', 'deep', 'true'],
      ['Firefox', null, 'false'],
    ]);
    expect(await rows('SELECT count() FROM events WHERE properties.n > 6')).toEqual([[1]]);
    expect(await rows('SELECT sum(properties.n), countIf(properties.flag = true) FROM events')).toEqual([[12, 1]]);
  });

  it('finds NULL unequal to a value, as PostHog does', async () => {
    expect(await rows("SELECT count() FROM events WHERE properties.$browser != 'Chrome'")).toEqual([[3]]);
    expect(await rows("SELECT count() FROM events WHERE properties.$browser NOT IN ('Chrome')")).toEqual([[3]]);
  });

  it('joins persons through their distinct ids, NULL for events without one', async () => {
    expect(await rows('SELECT person.properties.email AS email, count() FROM events GROUP BY email ORDER BY email')).toEqual([
      ['ada@example.com', 2],
      ['bob@example.com', 2],
      [null, 1],
    ]);
    expect(await rows("SELECT count() FROM events e JOIN persons p ON p.id = e.person_id WHERE p.properties.plan = 'pro'")).toEqual([[2]]);
  });

  it('cuts days in the team’s zone', async () => {
    const query = "SELECT toDate(timestamp), toStartOfDay(timestamp) FROM events WHERE uuid = 'aaaaaaaa-0000-0000-0000-000000000002'";
    expect(await rows(query)).toEqual([['2024-03-10', '2024-03-10T00:00:00.000Z']]);
    expect(await rows(query, { timezone: 'America/New_York' })).toEqual([['2024-03-09', '2024-03-09T05:00:00.000Z']]);
  });

  it('counts the boundaries dateDiff crosses, as ClickHouse', async () => {
    const query =
      "SELECT dateDiff('day', toDateTime('2024-01-01 23:59:00'), toDateTime('2024-01-02 00:01:00')), dateDiff('week', toDate('2024-03-09'), toDate('2024-03-11')), dateDiff('month', toDate('2024-01-31'), toDate('2024-02-01')), dateDiff('minute', toDateTime('2024-01-01 00:00:59'), toDateTime('2024-01-01 00:01:00'))";
    expect(await rows(query)).toEqual([[1, 1, 1, 1]]);
  });

  it('starts weeks on Sunday by default and on Monday in mode 1', async () => {
    expect(await rows("SELECT toStartOfWeek(toDate('2024-03-13')), toStartOfWeek(toDate('2024-03-13'), 1), toMonday(toDate('2024-03-10'))")).toEqual([
      ['2024-03-10', '2024-03-11', '2024-03-04'],
    ]);
  });

  it('answers NULL where ClickHouse’s conversions answer NULL, never an error', async () => {
    expect(await rows("SELECT toInt('12'), toInt('1.5'), toFloat('x'), toUUID('nope'), toDate('2024-02-30'), toDateTime('garbage'), 1 / 0, sqrt(-1)")).toEqual([
      [12, null, null, null, null, null, null, null],
    ]);
  });

  it('answers ClickHouse’s defaults from the JSON functions', async () => {
    const query = "SELECT JSONExtractString(properties, 'nested', 'a', 'b'), JSONExtractInt(properties, 'n'), JSONExtractRaw(properties, 'list'), JSONHas(properties, 'flag'), JSONExtractString(properties, 'missing'), JSONExtractInt(properties, 'list', 2) FROM events ORDER BY timestamp LIMIT 1";
    expect(await rows(query)).toEqual([['deep', 5, '[1, 2, 3]', true, '', 2]]);
  });

  it('binds variables: a list, a date, and text that looks like SQL', async () => {
    const variables = {
      browsers: { value: ['Firefox', 'Safari'], type: 'List' as const },
      since: { value: '2024-03-11', type: 'Date' as const },
      who: { value: "d1' OR '1'='1", type: 'String' as const },
    };
    expect(await rows('SELECT count() FROM events WHERE properties.$browser IN {browsers}', { variables })).toEqual([[1]]);
    expect(await rows('SELECT count() FROM events WHERE timestamp >= {since}', { variables })).toEqual([[3]]);
    expect(await rows('SELECT count() FROM events WHERE distinct_id = {who}', { variables })).toEqual([[0]]);
  });

  it('runs subqueries, CTEs, unions and window functions', async () => {
    expect(await rows('WITH pv AS (SELECT distinct_id FROM events WHERE event = \'$pageview\') SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM pv)')).toEqual([[4]]);
    // As in ClickHouse, a trailing ORDER BY sorts the last member of a UNION, not the whole.
    expect(await rows('SELECT key FROM groups UNION ALL SELECT event FROM (SELECT DISTINCT event FROM events) ORDER BY 1')).toEqual([['acme'], ['$pageview'], ['signup']]);
    expect(await rows('SELECT event, row_number() OVER (PARTITION BY event ORDER BY timestamp DESC) AS r FROM events ORDER BY event, r LIMIT 2')).toEqual([
      ['$pageview', 1],
      ['$pageview', 2],
    ]);
  });

  it('asks for one row more than the limit', async () => {
    const compiled = compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT event FROM events LIMIT 2'), { variables: {} });
    const result = await client.query({ text: compiled.sql, values: compiled.values });
    expect(result.rows).toHaveLength(3);
  });

  it('runs every function it maps', async () => {
    const expressions = [
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
    for (const list of expressions) await expect(rows(`SELECT ${list} FROM events`), list).resolves.toBeDefined();
  });

  it('runs a TrendsQuery compiled through the same compiler', async () => {
    const query = {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }],
      interval: 'day',
      dateRange: { date_from: '2024-03-01', date_to: '2024-03-31' },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    };
    expect(await run(compileHogQL(trendsToHogQL(query), { variables: {} }))).toEqual([
      ['2024-03-09T00:00:00.000Z', 'Chrome', 1],
      ['2024-03-10T00:00:00.000Z', 'Firefox', 1],
      ['2024-03-11T00:00:00.000Z', 'Chrome', 1],
    ]);
  });
});
