import { describe, expect, it } from 'vitest';
import { compileHogQL, type CompileOptions } from './hogql.compiler.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../hogql.limits.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

async function compile(query: string, options: Partial<CompileOptions> = {}) {
  return compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, query), { variables: {}, ...options });
}

/** The value bound to a placeholder of the SQL, e.g. valueOf(compiled, '$2'). */
function valueOf(compiled: { values: unknown[] }, placeholder: string): unknown {
  return compiled.values[Number(placeholder.slice(1)) - 1];
}

describe('compileHogQL', () => {
  describe('clauses', () => {
    it('sorts NULLs last both ways, as ClickHouse', async () => {
      const compiled = await compile('SELECT event FROM events ORDER BY event DESC, timestamp');
      expect(compiled.sql).toContain('ORDER BY "_t1"."event" DESC NULLS LAST, "_t1"."timestamp" ASC NULLS LAST');
    });

    it('uses select aliases in WHERE, GROUP BY, HAVING and ORDER BY by inlining them', async () => {
      const compiled = await compile('SELECT toStartOfDay(timestamp) AS day, count() AS c FROM events WHERE day > now() GROUP BY day HAVING c > 1 ORDER BY c DESC');
      const day = 'date_trunc(\'day\', "_t1"."timestamp", $1::text)';
      expect(compiled.sql).toContain(`WHERE (${day} > now())`);
      expect(compiled.sql).toContain(`GROUP BY ${day}`);
      expect(compiled.sql).toContain('HAVING (count(*) > $2::bigint)');
      expect(compiled.sql).toContain('ORDER BY count(*) DESC NULLS LAST');
    });

    it('takes GROUP BY and ORDER BY positions as columns of the SELECT list', async () => {
      const compiled = await compile('SELECT event, count() FROM events GROUP BY 1 ORDER BY 2 DESC');
      expect(compiled.sql).toContain('GROUP BY "_t1"."event" ORDER BY count(*) DESC NULLS LAST');
    });

    it('writes DISTINCT, OFFSET, ROLLUP and subqueries', async () => {
      expect((await compile('SELECT DISTINCT event FROM events')).sql).toMatch(/^SELECT DISTINCT /);
      expect((await compile('SELECT event FROM events LIMIT 5 OFFSET 10')).sql).toMatch(/LIMIT \$1::bigint OFFSET \$2::bigint$/);
      expect((await compile('SELECT event, count() FROM events GROUP BY ROLLUP(event)')).sql).toContain('GROUP BY ROLLUP("_t1"."event")');
      const nested = await compile('SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM person_distinct_ids)');
      expect(nested.sql).toContain('COALESCE("_t1"."distinct_id" IN (SELECT "_t2"."distinct_id" AS "_c1" FROM "ingestion"."hogql_person_distinct_ids" AS "_t2"), false)');
    });

    it('writes a UNION ALL with each member in parentheses and the first member’s column names', async () => {
      const compiled = await compile('SELECT event AS name FROM events UNION ALL SELECT key FROM groups');
      expect(compiled.sql).toBe(
        '(SELECT "_t1"."event" AS "_c1" FROM "ingestion"."hogql_events" AS "_t1") UNION ALL (SELECT "_t2"."key" AS "_c1" FROM "ingestion"."hogql_groups" AS "_t2") LIMIT $1::bigint',
      );
      expect(compiled.columns).toEqual([{ name: 'name', type: 'String' }]);
    });

    it('writes the joins PostgreSQL shares with ClickHouse', async () => {
      const compiled = await compile(
        'SELECT 1 FROM events e LEFT JOIN persons p ON p.id = e.person_id RIGHT JOIN groups g ON g.key = e.event FULL OUTER JOIN person_distinct_ids d ON d.distinct_id = e.distinct_id CROSS JOIN persons p2',
      );
      expect(compiled.sql).toMatch(/ LEFT JOIN "ingestion"\."hogql_persons" AS "_t2" ON .* RIGHT JOIN .* FULL JOIN .* CROSS JOIN "ingestion"\."hogql_persons" AS "_t5"/);
    });

    it('writes window functions with frames and named windows', async () => {
      const compiled = await compile(
        'SELECT row_number() OVER (PARTITION BY event ORDER BY timestamp ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), sum(1) OVER w FROM events WINDOW w AS (PARTITION BY distinct_id)',
      );
      expect(compiled.sql).toContain('row_number() OVER (PARTITION BY "_t1"."event" ORDER BY "_t1"."timestamp" ASC NULLS LAST ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)');
      expect(compiled.sql).toContain('sum($1::bigint) OVER (PARTITION BY "_t1"."distinct_id")');
    });
  });

  describe('NULL handling (PostHog’s null-safe comparisons)', () => {
    it('compares columns that cannot be NULL plainly, so that indexes serve', async () => {
      expect((await compile("SELECT event FROM events WHERE event = 'a'")).sql).toContain('WHERE ("_t1"."event" = $1::text)');
    });

    it('treats NULL as unequal to a value, and as equal to NULL', async () => {
      const compiled = await compile("SELECT properties.a != 'x', properties.a = properties.b FROM events");
      expect(compiled.sql).toContain('COALESCE(("_t1"."properties" ->> $1::text) <> $2::text, true)');
      expect(compiled.sql).toContain('(("_t1"."properties" ->> $1::text) IS NOT DISTINCT FROM ("_t1"."properties" ->> $3::text))');
    });

    it('writes IS NULL, = NULL and BETWEEN', async () => {
      const compiled = await compile('SELECT properties.a IS NULL, properties.a IS NOT NULL, properties.a = NULL, timestamp BETWEEN today() AND now() FROM events');
      expect(compiled.sql).toContain('(("_t1"."properties" ->> $1::text) IS NULL)');
      expect(compiled.sql).toContain('(("_t1"."properties" ->> $1::text) IS NOT NULL)');
      expect(compiled.sql).toMatch(/\("_t1"\."timestamp" BETWEEN \(\(.*\)::timestamp AT TIME ZONE \$\d+::text\) AND now\(\)\)/);
    });
  });

  describe('time', () => {
    it('binds the zone once and cuts days in it', async () => {
      const compiled = await compile('SELECT toStartOfDay(timestamp), toDate(timestamp) FROM events', { timezone: 'Europe/Paris' });
      expect(compiled.sql).toContain('date_trunc(\'day\', "_t1"."timestamp", $1::text) AS "_c1", ("_t1"."timestamp" AT TIME ZONE $1::text)::date AS "_c2"');
      expect(compiled.values[0]).toBe('Europe/Paris');
      expect(compiled.columns.map((column) => column.type)).toEqual(['DateTime', 'Date']);
    });

    it('moves a time by an interval on the wall clock of the zone, the amount bound', async () => {
      const compiled = await compile('SELECT count() FROM events WHERE timestamp > now() - INTERVAL 7 DAY');
      expect(compiled.sql).toContain('("_t1"."timestamp" > (((now() AT TIME ZONE $1::text) - (($2::bigint) * interval \'1 day\')) AT TIME ZONE $1::text))');
      expect(compiled.values[1]).toBe(7);
    });

    it('reads a date-time text compared with a timestamp in the team’s zone', async () => {
      const local = await compile("SELECT count() FROM events WHERE timestamp >= '2024-01-01 10:00:00'", { timezone: 'America/New_York' });
      expect(local.sql).toContain('("_t1"."timestamp" >= ($1::timestamp AT TIME ZONE $2::text))');
      const zoned = await compile("SELECT count() FROM events WHERE timestamp >= '2024-01-01T10:00:00Z'");
      expect(zoned.sql).toContain('("_t1"."timestamp" >= $1::timestamptz)');
    });

    it('refuses an unknown zone', async () => {
      await expect(compile('SELECT 1', { timezone: 'Mars/Olympus' })).rejects.toThrow('Unknown time zone: Mars/Olympus');
    });
  });

  describe('limits', () => {
    it('applies PostHog’s default of 100 rows, asking for one more', async () => {
      const compiled = await compile('SELECT event FROM events');
      expect(compiled.limit).toBe(DEFAULT_LIMIT);
      expect(compiled.sql).toMatch(/LIMIT \$1::bigint$/);
      expect(compiled.values).toEqual([DEFAULT_LIMIT + 1]);
    });

    it('takes the smaller of the limit asked and the query’s own', async () => {
      expect((await compile('SELECT event FROM events LIMIT 10', { limit: 50 })).limit).toBe(10);
      expect((await compile('SELECT event FROM events LIMIT 10', { limit: 3 })).limit).toBe(3);
      expect((await compile('SELECT event FROM events', { limit: 7 })).limit).toBe(7);
    });

    it('never goes above 50 000 rows', async () => {
      expect((await compile('SELECT event FROM events LIMIT 1000000')).limit).toBe(MAX_LIMIT);
      expect((await compile('SELECT event FROM events', { limit: 10_000_000 })).limit).toBe(MAX_LIMIT);
    });

    it('takes the LIMIT from a variable', async () => {
      const compiled = await compile('SELECT event FROM events LIMIT {n}', { variables: { n: { value: 4, type: 'Number' } } });
      expect(compiled.limit).toBe(4);
    });

    it('keeps the LIMIT of a subquery as written', async () => {
      const compiled = await compile('SELECT count() FROM (SELECT event FROM events LIMIT 3)');
      const inner = /\(SELECT .* LIMIT (\$\d+)::bigint\)/.exec(compiled.sql)![1]!;
      expect(valueOf(compiled, inner)).toBe(3);
    });

    it('refuses a LIMIT that is no whole number', async () => {
      await expect(compile('SELECT event FROM events LIMIT 1.5')).rejects.toThrow('LIMIT must be a whole number');
      await expect(compile('SELECT event FROM events', { limit: -1 })).rejects.toThrow('Invalid limit: -1');
    });
  });

  describe('column names', () => {
    it('names columns as PostHog does: alias, field, or the expression printed as HogQL', async () => {
      const compiled = await compile(
        "SELECT event AS e, count(), count(DISTINCT person_id), properties.$browser, toStartOfDay(timestamp), event = 'a', 1 + 2, quantile(0.9)(properties.n), properties.`odd key` FROM events GROUP BY e, properties.$browser, timestamp, properties.n, properties.`odd key`",
      );
      expect(compiled.columns.map((column) => column.name)).toEqual([
        'e',
        'count()',
        'count(DISTINCT person_id)',
        '$browser',
        'toStartOfDay(timestamp)',
        "equals(event, 'a')",
        'plus(1, 2)',
        'quantile(0.9)(properties.n)',
        'odd key',
      ]);
    });
  });
});
