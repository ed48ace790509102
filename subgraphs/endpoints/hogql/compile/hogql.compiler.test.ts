import { describe, expect, it } from 'vitest';
import { compileHogQL, type CompileOptions } from './hogql.compiler.js';
import { DEFAULT_LIMIT } from '../hogql.limits.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

async function compile(query: string, options: Partial<CompileOptions> = {}) {
  return compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, query), { variables: {}, ...options });
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

});
