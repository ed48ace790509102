import { describe, expect, it } from 'vitest';
import { compileHogQL, type CompileOptions } from './hogql.compiler.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './hogql.limits.js';
import { parseHogQLSelect } from './hogql.parser.js';

async function compile(query: string, options: Partial<CompileOptions> = {}) {
  return compileHogQL(await parseHogQLSelect(query), { variables: {}, ...options });
}

/** The value bound to a placeholder of the SQL, e.g. valueOf(compiled, '$2'). */
function valueOf(compiled: { values: unknown[] }, placeholder: string): unknown {
  return compiled.values[Number(placeholder.slice(1)) - 1];
}

describe('compileHogQL', () => {
  describe('tables and fields', () => {
    it('reads the events view under an alias of ours and names columns _c1.._cN', async () => {
      const compiled = await compile('SELECT event, distinct_id FROM events');
      expect(compiled.sql).toBe(
        'SELECT "_t1"."event" AS "_c1", "_t1"."distinct_id" AS "_c2" FROM "ingestion"."hogql_events" AS "_t1" LIMIT $1::bigint',
      );
      expect(compiled.columns).toEqual([
        { name: 'event', type: 'String' },
        { name: 'distinct_id', type: 'String' },
      ]);
    });

    it('resolves table aliases and qualified fields', async () => {
      const compiled = await compile('SELECT e.event, events2.timestamp FROM events e JOIN events events2 ON e.uuid = events2.uuid');
      expect(compiled.sql).toContain('SELECT "_t1"."event" AS "_c1", "_t2"."timestamp" AS "_c2"');
      expect(compiled.sql).toContain('JOIN "ingestion"."hogql_events" AS "_t2" ON ("_t1"."uuid" = "_t2"."uuid")');
      expect(compiled.columns.map((column) => column.name)).toEqual(['event', 'timestamp']);
    });

    it('expands * to the real columns of the table, not its lazy joins', async () => {
      const compiled = await compile('SELECT * FROM events');
      expect(compiled.columns).toEqual([
        { name: 'uuid', type: 'UUID' },
        { name: 'event', type: 'String' },
        { name: 'properties', type: 'JSON' },
        { name: 'timestamp', type: 'DateTime' },
        { name: 'distinct_id', type: 'String' },
        { name: 'created_at', type: 'DateTime' },
      ]);
      expect(compiled.sql).not.toContain('person');
    });

    it('reads the four tables of PostHog by their views', async () => {
      for (const [table, view] of [
        ['persons', 'hogql_persons'],
        ['person_distinct_ids', 'hogql_person_distinct_ids'],
        ['groups', 'hogql_groups'],
      ]) {
        expect((await compile(`SELECT * FROM ${table}`)).sql).toContain(`FROM "ingestion"."${view}" AS "_t1"`);
      }
    });

    it('joins persons lazily, only when a field of the person is used', async () => {
      const plain = await compile('SELECT event FROM events');
      expect(plain.sql).not.toContain('JOIN');
      const withPerson = await compile('SELECT person_id, events.person.properties.email FROM events');
      expect(withPerson.sql).toContain(
        'FROM ("ingestion"."hogql_events" AS "_t1" LEFT JOIN "ingestion"."hogql_person_distinct_ids" AS "_t1_pdi" ON "_t1_pdi"."distinct_id" = "_t1"."distinct_id" LEFT JOIN "ingestion"."hogql_persons" AS "_t1_pdi_person" ON "_t1_pdi_person"."id" = "_t1_pdi"."person_id")',
      );
      expect(withPerson.columns).toEqual([
        { name: 'person_id', type: 'UUID' },
        { name: 'email', type: 'String' },
      ]);
    });

    it('lets a JOIN constraint use a lazily joined field of an earlier table', async () => {
      const compiled = await compile('SELECT p.properties.plan FROM events e JOIN persons p ON e.person_id = p.id');
      expect(compiled.sql).toMatch(/FROM \("ingestion"\."hogql_events" AS "_t1" LEFT JOIN .* AS "_t1_pdi" .*\) JOIN "ingestion"\."hogql_persons" AS "_t2" ON \("_t1_pdi"\."person_id" = "_t2"\."id"\)/);
    });

    it('reads subquery and CTE columns by the names the user gave them', async () => {
      const compiled = await compile('WITH pv AS (SELECT event AS name, count() AS c FROM events GROUP BY event) SELECT s.c, name FROM pv AS s');
      expect(compiled.sql).toMatch(/^WITH "_w1" AS \(SELECT .* AS "_c1", count\(\*\) AS "_c2" FROM .*\) SELECT "_t2"\."_c2" AS "_c1", "_t2"\."_c1" AS "_c2" FROM "_w1" AS "_t2"/);
      expect(compiled.columns).toEqual([
        { name: 'c', type: 'Integer' },
        { name: 'name', type: 'String' },
      ]);
    });

    it('inlines a `WITH expr AS name` CTE where the name is used', async () => {
      const compiled = await compile("WITH '$pageview' AS pv SELECT count() FROM events WHERE event = pv");
      expect(compiled.sql).toContain('WHERE ("_t1"."event" = $1::text)');
      expect(compiled.values[0]).toBe('$pageview');
    });
  });

  describe('properties', () => {
    it('reads a property as text with its key bound', async () => {
      const compiled = await compile("SELECT properties.$browser, e.properties['$os'] FROM events e");
      expect(compiled.sql).toContain('("_t1"."properties" ->> $1::text) AS "_c1", ("_t1"."properties" ->> $2::text) AS "_c2"');
      expect(compiled.values.slice(0, 2)).toEqual(['$browser', '$os']);
      expect(compiled.columns).toEqual([
        { name: '$browser', type: 'String' },
        { name: '$os', type: 'String' },
      ]);
    });

    it('reads a nested property by a bound path, named as PostHog names it', async () => {
      const compiled = await compile('SELECT properties.a.b, properties.list[1] FROM events');
      expect(compiled.sql).toContain('("_t1"."properties" #>> $1::text[]) AS "_c1", (("_t1"."properties" -> $2::text) #>> $3::text[]) AS "_c2"');
      // ClickHouse counts array items from 1, jsonb from 0.
      expect(compiled.values.slice(0, 3)).toEqual([['a', 'b'], 'list', ['0']]);
      expect(compiled.columns.map((column) => column.name)).toEqual(['a__b', 'list__1']);
    });

    it('compares a property with a number as the number it spells, never failing', async () => {
      const compiled = await compile('SELECT count() FROM events WHERE properties.amount > 12');
      expect(compiled.sql).toContain(
        "COALESCE((CASE WHEN (\"_t1\".\"properties\" ->> $1::text) ~ '^\\s*[-+]?([0-9]{1,200}(\\.[0-9]{0,200})?|\\.[0-9]{1,200})([eE][-+]?[0-9]{1,2})?\\s*$' THEN ((\"_t1\".\"properties\" ->> $1::text))::float8 END) > $2::bigint, false)",
      );
    });

    it('compares a property with a boolean as the text true or false', async () => {
      const compiled = await compile('SELECT count() FROM events WHERE properties.paid = true');
      expect(compiled.sql).toContain("(CASE WHEN $2::boolean THEN 'true' ELSE 'false' END)");
    });

    it('sums a property as a number', async () => {
      const compiled = await compile('SELECT sum(properties.amount) FROM events');
      expect(compiled.sql).toMatch(/^SELECT sum\(\(CASE WHEN .* THEN .*::float8 END\)\) AS "_c1"/);
      expect(compiled.columns).toEqual([{ name: 'sum(properties.amount)', type: 'Float' }]);
    });
  });

  describe('values', () => {
    it('binds every constant: text that looks like SQL is only a value', async () => {
      const compiled = await compile("SELECT count() FROM events WHERE event = 'x''; drop table events; --' OR distinct_id = '*/ or 1=1 /*'");
      expect(compiled.sql).not.toMatch(/drop|or 1=1/i);
      expect(compiled.values).toContain("x'; drop table events; --");
      expect(compiled.values).toContain('*/ or 1=1 /*');
    });

    it('binds numbers, booleans and NULL with their types', async () => {
      const compiled = await compile('SELECT 1, 2.5, true, NULL');
      expect(compiled.sql).toBe('SELECT $1::bigint AS "_c1", $2::float8 AS "_c2", $3::boolean AS "_c3", NULL AS "_c4" LIMIT $4::bigint');
      expect(compiled.values).toEqual([1, 2.5, true, DEFAULT_LIMIT + 1]);
      expect(compiled.columns.map((column) => column.type)).toEqual(['Integer', 'Float', 'Boolean', 'Null']);
    });

    it('binds an equal value once, so that a repeated expression prints the same SQL (GROUP BY needs it)', async () => {
      const compiled = await compile("SELECT concat(event, '!') FROM events GROUP BY concat(event, '!')");
      expect(compiled.sql).toContain("GROUP BY concat(\"_t1\".\"event\", $1::text)");
      expect(compiled.values.filter((value) => value === '!')).toHaveLength(1);
    });

    it('writes IN over constants as one array parameter', async () => {
      const compiled = await compile("SELECT count() FROM events WHERE event IN ('a', 'b') AND event NOT IN ('c', 'd')");
      expect(compiled.sql).toContain('("_t1"."event" = ANY($1::text[]))');
      expect(compiled.sql).toContain('(NOT ("_t1"."event" = ANY($2::text[])))');
      expect(compiled.values.slice(0, 2)).toEqual([
        ['a', 'b'],
        ['c', 'd'],
      ]);
    });
  });

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
