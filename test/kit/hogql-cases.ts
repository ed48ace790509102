/**
 * HogQL queries and the rows they must answer over `SEED_EVENTS` (kit/endpoints.ts): 13 events
 * of u1 (6), u2 (5) and u3 (2); persons u1 (ada, pro) and u2 (bob, free); companies acme (50
 * employees) and globex (7). 2026-01-04 and 2026-01-11 are Sundays.
 */
export interface HogQLCase {
  query: string;
  rows: unknown[][];
  /** The query's declared variables (PostHog's `variables` of a HogQLQuery). */
  declared?: Record<string, unknown>;
  /** Values given to the run. */
  variables?: Record<string, unknown>;
}

export const HOGQL_CASES: HogQLCase[] = [
  // Counting and aggregation
  { query: 'select count() from events', rows: [[13]] },
  { query: "select count(*) from events where event = '$pageview'", rows: [[6]] },
  { query: 'select event, count() as c from events group by event order by c desc, event', rows: [['$pageview', 6], ['$groupidentify', 2], ['$identify', 2], ['purchase', 2], ['signed_up', 1]] },
  { query: 'select uniq(distinct_id) from events', rows: [[3]] },
  { query: "select count(distinct distinct_id) from events where event = 'purchase'", rows: [[2]] },
  { query: "select countIf(event = 'purchase') from events", rows: [[2]] },
  { query: "select sum(toFloat(properties.amount)), min(toFloat(properties.amount)), max(toFloat(properties.amount)) from events where event = 'purchase'", rows: [[114.5, 15, 99.5]] },
  { query: "select avg(toFloat(properties.amount)) from events where event = 'purchase'", rows: [[57.25]] },
  { query: "select round(sum(toFloat(properties.amount)) / 3, 2) from events where event = 'purchase'", rows: [[38.17]] },
  // Properties
  { query: "select properties.$browser as b, count() from events where event = '$pageview' group by b order by b", rows: [['Chrome', 3], ['Firefox', 1], ['Safari', 2]] },
  { query: "select properties.nested.level from events where event = 'signed_up'", rows: [['deep']] },
  { query: "select JSONExtractString(properties, 'currency') from events where event = 'purchase' order by timestamp", rows: [['USD'], ['EUR']] },
  { query: "select JSONExtractFloat(properties, 'amount') from events where event = 'purchase' order by timestamp", rows: [[99.5], [15]] },
  { query: 'select count() from events where properties.amount > 12', rows: [[3]] },
  { query: "select count() from events where properties.paid = 'true'", rows: [[1]] },
  // Dates and times
  { query: "select timestamp from events where event = 'signed_up'", rows: [['2026-01-06T09:00:00Z']] },
  { query: "select toStartOfDay(timestamp) as d, count() from events where event = '$pageview' group by d order by d", rows: [['2026-01-05T00:00:00Z', 3], ['2026-01-06T00:00:00Z', 1], ['2026-01-12T00:00:00Z', 1], ['2026-02-02T00:00:00Z', 1]] },
  { query: "select toStartOfHour(timestamp) as h, count() from events where toDate(timestamp) = '2026-01-05' group by h order by h", rows: [['2026-01-05T10:00:00Z', 3], ['2026-01-05T11:00:00Z', 4]] },
  { query: "select toStartOfWeek(timestamp) as w, count() from events where event = '$pageview' group by w order by w", rows: [['2026-01-04', 4], ['2026-01-11', 1], ['2026-02-01', 1]] },
  { query: 'select toStartOfMonth(timestamp) as m, count() from events group by m order by m', rows: [['2026-01-01', 12], ['2026-02-01', 1]] },
  { query: "select toDate(timestamp) as d from events where event = 'purchase' order by d", rows: [['2026-01-07'], ['2026-01-12']] },
  { query: "select count() from events where timestamp >= toDateTime('2026-01-06 00:00:00') and timestamp < toDateTime('2026-01-08 00:00:00')", rows: [[3]] },
  { query: "select count() from events where timestamp > toDateTime('2026-01-12 00:00:00') - INTERVAL 6 DAY", rows: [[6]] },
  { query: 'select count() from events where timestamp < now()', rows: [[13]] },
  { query: 'select count() from events where timestamp > now() - INTERVAL 1 DAY', rows: [[0]] },
  { query: "select toDate('2026-01-05') < today()", rows: [[true]] },
  { query: "select dateDiff('day', toDateTime('2026-01-05 23:00:00'), toDateTime('2026-01-06 01:00:00'))", rows: [[1]] },
  { query: "select dateDiff('hour', toDateTime('2026-01-05 23:00:00'), toDateTime('2026-01-06 01:00:00'))", rows: [[2]] },
  { query: "select dateDiff('month', toDate('2026-01-31'), toDate('2026-02-01'))", rows: [[1]] },
  // Conditionals and strings
  { query: "select if(properties.$browser = 'Chrome', 'chrome', 'other') as k, count() from events where event = '$pageview' group by k order by k", rows: [['chrome', 3], ['other', 3]] },
  { query: "select multiIf(event = 'purchase', 'money', event = 'signed_up', 'growth', 'other') as k, count() from events group by k order by k", rows: [['growth', 1], ['money', 2], ['other', 10]] },
  { query: "select coalesce(properties.currency, 'none') as c, count() from events where event in ('purchase', 'signed_up') group by c order by c", rows: [['EUR', 1], ['USD', 1], ['none', 1]] },
  { query: "select lower(properties.$browser), upper(event), concat(distinct_id, '-', event) from events where event = 'signed_up'", rows: [['firefox', 'SIGNED_UP', 'u2-signed_up']] },
  { query: "select count() from events where properties.$pathname like '/h%'", rows: [[4]] },
  { query: "select count() from events where properties.$browser ilike 'chr%'", rows: [[4]] },
  { query: "select count() from events where event = '$pageview' and properties.$pathname not like '/h%'", rows: [[2]] },
  { query: 'select 1 + 2 * 3, 10 / 4, 7 % 3', rows: [[7, 2.5, 1]] },
  { query: "select concat('it\\'s', ' ok')", rows: [["it's ok"]] },
  // Clauses
  { query: 'select distinct_id, count() as c from events group by distinct_id having c > 4 order by distinct_id', rows: [['u1', 6], ['u2', 5]] },
  { query: 'select distinct_id, count() as c from events group by distinct_id order by c desc limit 1 offset 1', rows: [['u2', 5]] },
  { query: "select distinct properties.$browser as b from events where event = '$pageview' order by b", rows: [['Chrome'], ['Firefox'], ['Safari']] },
  { query: 'select count() from (select distinct_id from events group by distinct_id)', rows: [[3]] },
  { query: "select count() from events where distinct_id in (select distinct_id from events where event = 'purchase')", rows: [[11]] },
  {
    query: "with buyers as (select distinct_id from events where event = 'purchase') select count() from events where distinct_id in (select distinct_id from buyers) and event = '$pageview'",
    rows: [[4]],
  },
  { query: "select count() from (select distinct_id from events where event = 'purchase' union all select distinct_id from events where event = 'signed_up')", rows: [[3]] },
  // Persons and groups
  { query: "select person.properties.email as email, count() from events where event = '$pageview' group by email order by email", rows: [['ada@example.com', 3], ['bob@example.com', 1], [null, 2]] },
  { query: "select p.properties.plan as plan, count() from events e join persons p on e.person_id = p.id where e.event = 'purchase' group by plan order by plan", rows: [['free', 1], ['pro', 1]] },
  { query: "select count() from persons where properties.email like '%@example.com'", rows: [[2]] },
  { query: 'select key, properties.name, properties.employees from groups order by key', rows: [['acme', 'Acme', '50'], ['globex', 'Globex', '7']] },
  { query: 'select key from groups where toInt(properties.employees) > 10', rows: [['acme']] },
  // Variables
  { query: 'select count() from events where event = {variables.event_name}', declared: { v1: { code_name: 'event_name', value: '$pageview' } }, rows: [[6]] },
  { query: 'select count() from events where event = {variables.event_name}', declared: { v1: { code_name: 'event_name', value: '$pageview' } }, variables: { event_name: 'purchase' }, rows: [[2]] },
  { query: 'select count() from events where toFloat(properties.amount) >= {variables.least}', declared: { v1: { code_name: 'least', value: 15, type: 'Number' } }, rows: [[3]] },
];

/** Queries that try to leave the team's rows or the allow-list; `names` is what the 400 must name. */
export const ESCAPE_ATTEMPTS: { query: string; names?: string }[] = [
  { query: 'select relname from pg_class', names: 'pg_class' },
  { query: 'select * from pg_catalog.pg_class', names: 'pg_catalog' },
  { query: 'select * from information_schema.tables', names: 'information_schema' },
  { query: 'select count() from ingestion.events', names: 'ingestion' },
  { query: 'select * from events, pg_user', names: 'pg_user' },
  { query: 'select pg_sleep(10)', names: 'pg_sleep' },
  { query: "select pg_read_file('/etc/passwd')", names: 'pg_read_file' },
  { query: "select current_setting('hogql.team_id')", names: 'current_setting' },
  { query: "select set_config('hogql.team_id', '1', false)", names: 'set_config' },
  { query: "select lo_import('/etc/passwd')", names: 'lo_import' },
  { query: "select dblink('host=127.0.0.1', 'select 1')", names: 'dblink' },
  { query: 'select version()', names: 'version' },
  { query: 'select txid_current()', names: 'txid_current' },
  { query: "select nextval('x')", names: 'nextval' },
  { query: "select 'pg_class'::regclass" },
  { query: "select cast('pg_class' as regclass)" },
  { query: 'select 1; drop table events' },
  { query: 'select 1; select * from pg_shadow' },
  { query: 'select 1 /* */; delete from events' },
  { query: "select * from events where 1 = 1) union select usename from pg_user --" },
  { query: 'select count() from events where elements_chain is not null', names: 'elements_chain' },
  { query: 'delete from events' },
  { query: 'insert into events values (1)' },
  { query: 'select not_a_function(event) from events', names: 'not_a_function' },
  { query: "select event from events union all select usename from pg_user", names: 'pg_user' },
  { query: 'select * from generate_series(1, 10)', names: 'generate_series' },
  { query: 'select e.event from events e join pg_roles r on r.rolname = e.event', names: 'pg_roles' },
  { query: "select query_to_xml('select * from accounts.users', true, true, '')", names: 'query_to_xml' },
  { query: 'select pg_terminate_backend(1)', names: 'pg_terminate_backend' },
  { query: "select lo_export(1, '/tmp/x')", names: 'lo_export' },
  { query: 'select count() from events settings max_threads = 1' },
  { query: 'select count() from accounts.users', names: 'accounts' },
  { query: 'select (select count() from pg_stat_activity)', names: 'pg_stat_activity' },
  { query: 'select arrayMap(x -> pg_sleep(x), [1])' },
];
