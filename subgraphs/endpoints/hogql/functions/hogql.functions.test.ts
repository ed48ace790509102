import { describe, expect, it } from 'vitest';
import { compileHogQL } from '../compile/hogql.compiler.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

/** The SQL of the first column of `SELECT <expr> FROM events`, and its type. */
async function column(expr: string): Promise<{ sql: string; type: string }> {
  const compiled = compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, `SELECT ${expr} FROM events`), { variables: {} });
  const sql = /^SELECT (.*) AS "_c1"/.exec(compiled.sql)![1]!;
  return { sql, type: compiled.columns[0]!.type };
}

describe('compileHogQL', () => {
  describe('aggregations', () => {
    it.each([
      ['count()', 'count(*)', 'Integer'],
      ['count(*)', 'count(*)', 'Integer'],
      ['COUNT()', 'count(*)', 'Integer'],
      ['count(event)', 'count("_t1"."event")', 'Integer'],
      ['count(DISTINCT event)', 'count(DISTINCT "_t1"."event")', 'Integer'],
      ['countDistinct(event)', 'count(DISTINCT "_t1"."event")', 'Integer'],
      ['uniq(event)', 'count(DISTINCT "_t1"."event")', 'Integer'],
      ['uniqExact(event, distinct_id)', 'count(DISTINCT ("_t1"."event", "_t1"."distinct_id"))', 'Integer'],
      ["countIf(event = 'a')", 'count(*) FILTER (WHERE ("_t1"."event" = $1::text))', 'Integer'],
      ["sumIf(1, event = 'a')", 'COALESCE(sum($1::bigint) FILTER (WHERE ("_t1"."event" = $2::text)), 0)', 'Integer'],
      ['avg(1.5)', '(avg($1::float8))::float8', 'Float'],
      ['min(timestamp)', 'min("_t1"."timestamp")', 'DateTime'],
      ['max(uuid)', '(max(("_t1"."uuid")::text))::uuid', 'UUID'],
      ['any(event)', '(array_agg("_t1"."event") FILTER (WHERE "_t1"."event" IS NOT NULL))[1]', 'String'],
      ['argMax(event, timestamp)', '(array_agg("_t1"."event" ORDER BY "_t1"."timestamp" DESC) FILTER (WHERE "_t1"."timestamp" IS NOT NULL))[1]', 'String'],
      ['median(1)', 'percentile_cont(0.5) WITHIN GROUP (ORDER BY $1::bigint)', 'Float'],
      ['quantile(0.9)(1)', 'percentile_cont($1::float8) WITHIN GROUP (ORDER BY $2::bigint)', 'Float'],
      ['count() FILTER (WHERE event = \'a\')', 'count(*) FILTER (WHERE ("_t1"."event" = $1::text))', 'Integer'],
    ])('%s', async (expr, sql, type) => {
      expect(await column(expr)).toEqual({ sql, type });
    });
  });

  describe('dates and times', () => {
    it.each([
      ['now()', 'now()', 'DateTime'],
      ['today()', '(now() AT TIME ZONE $1::text)::date', 'Date'],
      ['yesterday()', '((now() AT TIME ZONE $1::text)::date - 1)', 'Date'],
      ['toStartOfHour(timestamp)', 'date_trunc(\'hour\', "_t1"."timestamp", $1::text)', 'DateTime'],
      ['toStartOfMinute(timestamp)', 'date_trunc(\'minute\', "_t1"."timestamp", $1::text)', 'DateTime'],
      ['toStartOfMonth(timestamp)', 'date_trunc(\'month\', ("_t1"."timestamp" AT TIME ZONE $1::text))::date', 'Date'],
      ['toStartOfYear(timestamp)', 'date_trunc(\'year\', ("_t1"."timestamp" AT TIME ZONE $1::text))::date', 'Date'],
      // ClickHouse's default mode 0 starts weeks on Sunday; odd modes on Monday.
      ['toStartOfWeek(timestamp)', '(("_t1"."timestamp" AT TIME ZONE $1::text)::date - extract(dow from ("_t1"."timestamp" AT TIME ZONE $1::text))::int)', 'Date'],
      ['toStartOfWeek(timestamp, 1)', 'date_trunc(\'week\', ("_t1"."timestamp" AT TIME ZONE $1::text))::date', 'Date'],
      ['toYear(timestamp)', 'floor(extract(year from ("_t1"."timestamp" AT TIME ZONE $1::text)))::int', 'Integer'],
      ['toDayOfWeek(timestamp)', '(extract(isodow from ("_t1"."timestamp" AT TIME ZONE $1::text)))::int', 'Integer'],
      ['toUnixTimestamp(timestamp)', 'floor(extract(epoch from "_t1"."timestamp"))::bigint', 'Integer'],
      ['toIntervalDay(3)', '(($1::bigint) * interval \'1 day\')', 'Unknown'],
      ["toDateTime('2024-01-01 10:00:00')", '($1::timestamp AT TIME ZONE $2::text)', 'DateTime'],
      ["toDateTime('2024-01-01T10:00:00+02:00')", '$1::timestamptz', 'DateTime'],
      ["toDateTime('nonsense')", 'NULL::timestamptz', 'DateTime'],
      ["toDate('2024-02-30')", 'NULL::date', 'Date'],
      ["toDate('2024-02-29')", '$1::date', 'Date'],
      ["dateDiff('day', timestamp, now())", '(((now() AT TIME ZONE $1::text))::date - (("_t1"."timestamp" AT TIME ZONE $1::text))::date)::bigint', 'Integer'],
      ["dateDiff('second', timestamp, now())", '(floor(extract(epoch from now()) / 1) - floor(extract(epoch from "_t1"."timestamp") / 1))::bigint', 'Integer'],
      ["dateAdd('day', 1, toDate('2024-01-01'))", '(($1::date) + (($2::bigint) * interval \'1 day\'))::date', 'Date'],
      ['addHours(timestamp, 2)', '((("_t1"."timestamp" AT TIME ZONE $1::text) + (($2::bigint) * interval \'1 hour\')) AT TIME ZONE $1::text)', 'DateTime'],
    ])('%s', async (expr, sql, type) => {
      expect(await column(expr)).toEqual({ sql, type });
    });

    it('counts month boundaries crossed, not months elapsed', async () => {
      const { sql } = await column("dateDiff('month', toDate('2024-01-31'), toDate('2024-02-01'))");
      expect(sql).toBe(
        '((extract(year from ($1::date)::timestamp) * 12 + extract(month from ($1::date)::timestamp)) - (extract(year from ($2::date)::timestamp) * 12 + extract(month from ($2::date)::timestamp)))::bigint',
      );
    });
  });

  describe('conversions', () => {
    it.each([
      ['toString(timestamp)', 'to_char("_t1"."timestamp" AT TIME ZONE $1::text, \'YYYY-MM-DD HH24:MI:SS.US\')', 'String'],
      ['toString(true)', "(CASE WHEN $1::boolean THEN 'true' ELSE 'false' END)", 'String'],
      ['toInt(event)', "(CASE WHEN \"_t1\".\"event\" ~ '^\\s*[-+]?[0-9]{1,18}\\s*$' THEN (\"_t1\".\"event\")::bigint END)", 'Integer'],
      ['toInt(1.7)', '(CASE WHEN $1::float8 > -9.2e18 AND $1::float8 < 9.2e18 THEN trunc($1::float8)::bigint END)', 'Integer'],
      ['toFloat(2)', '($1::bigint)::float8', 'Float'],
      ['toUUID(event)', "(CASE WHEN \"_t1\".\"event\" ~ '^\\s*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\s*$' THEN btrim(\"_t1\".\"event\")::uuid END)", 'UUID'],
      ['toDate(timestamp)', '("_t1"."timestamp" AT TIME ZONE $1::text)::date', 'Date'],
    ])('%s', async (expr, sql, type) => {
      expect(await column(expr)).toEqual({ sql, type });
    });
  });

  describe('conditionals and NULLs', () => {
    it.each([
      ["if(event = 'a', 1, 2)", '(CASE WHEN ("_t1"."event" = $1::text) THEN $2::bigint ELSE $3::bigint END)', 'Integer'],
      ["multiIf(event = 'a', 1, event = 'b', 2.5, 0)", '(CASE WHEN ("_t1"."event" = $1::text) THEN $2::bigint WHEN ("_t1"."event" = $3::text) THEN $4::float8 ELSE $5::bigint END)', 'Float'],
      ["CASE WHEN event = 'a' THEN 'x' ELSE 'y' END", '(CASE WHEN ("_t1"."event" = $1::text) THEN $2::text ELSE $3::text END)', 'String'],
      ["CASE event WHEN 'a' THEN 1 ELSE 0 END", '(CASE WHEN ("_t1"."event" = $1::text) THEN $2::bigint ELSE $3::bigint END)', 'Integer'],
      ["coalesce(properties.a, 'none')", 'COALESCE(("_t1"."properties" ->> $1::text), $2::text)', 'String'],
      ["ifNull(properties.a, 'none')", 'COALESCE(("_t1"."properties" ->> $1::text), $2::text)', 'String'],
      ['isNull(properties.a)', '(("_t1"."properties" ->> $1::text) IS NULL)', 'Boolean'],
      ['isNotNull(properties.a)', '(("_t1"."properties" ->> $1::text) IS NOT NULL)', 'Boolean'],
      ["nullIf(event, '')", 'NULLIF("_t1"."event", $1::text)', 'String'],
    ])('%s', async (expr, sql, type) => {
      expect(await column(expr)).toEqual({ sql, type });
    });
  });

  describe('strings', () => {
    it.each([
      ["concat(event, '-', properties.n, NULL, 1)", 'concat("_t1"."event", $1::text, ("_t1"."properties" ->> $2::text), NULL::text, ($3::bigint)::text)', 'String'],
      ['lower(event)', 'lower("_t1"."event")', 'String'],
      ['upper(event)', 'upper("_t1"."event")', 'String'],
      ['length(event)', 'octet_length("_t1"."event")', 'Integer'],
      ['lengthUTF8(event)', 'char_length("_t1"."event")', 'Integer'],
      ['trim(event)', 'btrim("_t1"."event")', 'String'],
      ["replaceAll(event, 'a', 'b')", 'replace("_t1"."event", $1::text, $2::text)', 'String'],
      ["startsWith(event, '$')", 'starts_with("_t1"."event", $1::text)', 'Boolean'],
      ["endsWith(event, 'view')", '(right("_t1"."event", char_length($1::text)) = $1::text)', 'Boolean'],
      ["position(event, 'view')", 'strpos("_t1"."event", $1::text)', 'Integer'],
      ["like(event, '%view')", '("_t1"."event" LIKE $1::text)', 'Boolean'],
      ["event ILIKE '%VIEW'", '("_t1"."event" ILIKE $1::text)', 'Boolean'],
      ["event NOT LIKE '%view'", '("_t1"."event" NOT LIKE $1::text)', 'Boolean'],
      ["match(event, '^\\\\$')", '("_t1"."event" ~ $1::text)', 'Boolean'],
      ["event =~ 'a'", '("_t1"."event" ~ $1::text)', 'Boolean'],
      ["event !~ 'a'", '("_t1"."event" !~ $1::text)', 'Boolean'],
      ["substring(event, 2, 3)", 'substr("_t1"."event", (CASE WHEN $1::bigint < 0 THEN char_length("_t1"."event") + 1 + $1::bigint ELSE $1::bigint END)::int, GREATEST($2::bigint, 0)::int)', 'String'],
    ])('%s', async (expr, sql, type) => {
      expect(await column(expr)).toEqual({ sql, type });
    });
  });

  describe('JSON', () => {
    it.each([
      ["JSONExtractString(properties, 'a', 'b')", "COALESCE(CASE WHEN jsonb_typeof((\"_t1\".\"properties\" #> $1::text[])) = 'string' THEN ((\"_t1\".\"properties\" #> $1::text[]) #>> '{}') END, '')", 'String'],
      ["JSONExtractInt(properties, 'n')", "COALESCE(CASE WHEN jsonb_typeof((\"_t1\".\"properties\" #> $1::text[])) = 'number' THEN (CASE WHEN abs(((\"_t1\".\"properties\" #> $1::text[]))::numeric) < 9.2e18 THEN trunc(((\"_t1\".\"properties\" #> $1::text[]))::numeric)::bigint END) END, 0)", 'Integer'],
      ["JSONExtractBool(properties, 'ok')", "COALESCE(CASE WHEN jsonb_typeof((\"_t1\".\"properties\" #> $1::text[])) = 'boolean' THEN ((\"_t1\".\"properties\" #> $1::text[]))::boolean END, false)", 'Boolean'],
      ["JSONExtractRaw(properties, 'list', 1)", "COALESCE(((\"_t1\".\"properties\" #> $1::text[]))::text, '')", 'String'],
      ["JSONHas(properties, 'a')", '(("_t1"."properties" #> $1::text[]) IS NOT NULL)', 'Boolean'],
      ["JSONExtractString(properties.a, 'b')", "COALESCE(CASE WHEN jsonb_typeof(((\"_t1\".\"properties\" -> $1::text) #> $2::text[])) = 'string' THEN (((\"_t1\".\"properties\" -> $1::text) #> $2::text[]) #>> '{}') END, '')", 'String'],
    ])('%s', async (expr, sql, type) => {
      expect(await column(expr)).toEqual({ sql, type });
    });
  });

  describe('numbers', () => {
    it.each([
      ['1 + 2', '($1::bigint + $2::bigint)', 'Integer'],
      ['10 / 4', '(($1::bigint)::float8 / NULLIF(($2::bigint)::float8, 0))', 'Float'],
      ['10 % 3', '($1::bigint % NULLIF($2::bigint, 0))', 'Integer'],
      ['round(2.5)', 'round(($1::float8)::float8)', 'Float'],
      ['round(2.567, 2)', '(round(($1::float8)::float8 * power(10::float8, $2::bigint)) / power(10::float8, $2::bigint))', 'Float'],
      ['floor(2)', '$1::bigint', 'Integer'],
      ['abs(-2)', 'abs($1::bigint)', 'Integer'],
      ['sqrt(4)', '(CASE WHEN ($1::bigint) >= 0 THEN sqrt(($1::bigint)::float8) END)', 'Float'],
      ['greatest(1, 2.5)', 'GREATEST($1::bigint, $2::float8)', 'Float'],
      ['intDiv(7, 2)', '($1::bigint / NULLIF($2::bigint, 0))', 'Integer'],
      ['plus(1, 2)', '($1::bigint + $2::bigint)', 'Integer'],
      ["has(['a', 'b'], event)", '("_t1"."event" = ANY($1::text[]))', 'Boolean'],
      ["tuple(1, 'a')", 'jsonb_build_array($1::bigint, $2::text)', 'Tuple'],
      ["tuple(1, 'a').2", '$1::text', 'String'],
      ["event IN tuple('a', 'b')", '("_t1"."event" = ANY($1::text[]))', 'Boolean'],
    ])('%s', async (expr, sql, type) => {
      expect(await column(expr)).toEqual({ sql, type });
    });
  });
});
