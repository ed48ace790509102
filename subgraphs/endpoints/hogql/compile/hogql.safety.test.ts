import { describe, expect, it } from 'vitest';
import { compileHogQL } from './hogql.compiler.js';
import { HogQLError } from '../hogql.errors.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';
import type { HogQLNode } from '../hogql.types.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

async function compile(query: string) {
  return compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, query), { variables: {} });
}

async function refusal(query: string): Promise<HogQLError> {
  const error = await compile(query).catch((caught: unknown) => caught);
  expect(error, query).toBeInstanceOf(HogQLError);
  return error as HogQLError;
}

describe('compileHogQL', () => {
  describe('refuses what is not on its allow-lists, naming it', () => {
    it.each([
      ['SELECT relname FROM pg_class', 'Unknown table: pg_class'],
      ['SELECT * FROM pg_catalog.pg_class', 'Unknown table: pg_catalog.pg_class'],
      ['SELECT * FROM information_schema.tables', 'Unknown table: information_schema.tables'],
      ['SELECT count() FROM ingestion.events', 'Unknown table: ingestion.events'],
      ['SELECT count() FROM hogql_events', 'Unknown table: hogql_events'],
      ['SELECT * FROM events, pg_user', 'Unknown table: pg_user'],
      ['SELECT * FROM numbers(10)', 'Unknown table: numbers'],
    ])('tables: %s', async (query, message) => {
      expect((await refusal(query)).message).toBe(message);
    });

    it.each(['pg_sleep', 'pg_read_file', 'set_config', 'current_setting', 'lo_import', 'dblink', 'version', 'txid_current', 'nextval', 'pg_terminate_backend', 'query_to_xml'])(
      'functions: %s',
      async (name) => {
        expect((await refusal(`SELECT ${name}('x')`)).message).toBe(`Unsupported function: ${name}`);
      },
    );

    it.each([
      ['SELECT elements_chain FROM events', 'Unknown field: elements_chain on table events'],
      ['SELECT e.secret FROM events e', 'Unknown field: secret on table events'],
      ['SELECT person.secret FROM events', 'Unknown field: secret on table persons'],
      ['SELECT nothing', 'Unknown field: nothing'],
      ['SELECT person FROM events', 'Cannot select the table person as a column: name one of its fields'],
      ['SELECT distinct_id FROM events JOIN person_distinct_ids ON 1 = 1', 'Ambiguous query. Found multiple sources for field: distinct_id'],
    ])('fields: %s', async (query, message) => {
      expect((await refusal(query)).message).toBe(message);
    });

    it.each([
      ["SELECT 'pg_class'::regclass", 'Unsupported type cast: regclass'],
      ["SELECT cast('pg_class' AS regclass)", 'Unsupported type cast: regclass'],
      ['SELECT event::oid FROM events', 'Unsupported type cast: oid'],
    ])('casts: %s', async (query, message) => {
      expect((await refusal(query)).message).toBe(message);
    });

    it('takes the casts that are conversions of ours', async () => {
      const compiled = await compile("SELECT '5'::Int, 1::String, '2024-01-01'::Date");
      expect(compiled.columns.map((column) => column.type)).toEqual(['Integer', 'String', 'Date']);
    });

    it.each([
      ['SELECT event FROM events PREWHERE 1', 'SelectQuery.prewhere'],
      ['SELECT event FROM events SAMPLE 0.1', 'JoinExpr.sample'],
      ['SELECT event FROM events ARRAY JOIN [1] AS a', 'SelectQuery.array_join_list'],
      ['SELECT event FROM events LIMIT 1 BY event', 'SelectQuery.limit_by'],
      ['SELECT event FROM events ORDER BY event WITH FILL', 'OrderExpr.with_fill'],
      ['SELECT event FROM events QUALIFY 1', 'SelectQuery.qualify'],
      ['SELECT groupArray(event ORDER BY timestamp) FROM events', 'Call.order_by'],
    ])('clauses it does not compile: %s', async (query, feature) => {
      expect((await refusal(query)).message).toBe(`Unsupported HogQL feature: ${feature}`);
    });

    it.each([
      ['SELECT 1 FROM events ANY LEFT JOIN persons ON 1 = 1', 'Unsupported join: LEFT ANY JOIN'],
      ['SELECT 1 FROM events JOIN persons USING (id)', 'Unsupported join constraint: USING (use ON)'],
      ['SELECT 1 FROM events ASOF JOIN persons ON 1 = 1', 'Unsupported join: ASOF INNER JOIN'],
      ['SELECT 1 FROM events JOIN persons', 'JOIN needs an ON constraint'],
      ['SELECT a.b.c()', 'Unsupported node: ExprCall'],
    ])('joins, sets and calls it does not compile: %s', async (query, message) => {
      expect((await refusal(query)).message).toMatch(message);
    });

    it('refuses a node kind it does not know', () => {
      const ast: HogQLNode = { node: 'SelectQuery', select: [{ node: 'HogQLXTag', kind: 'Sparkline' }] };
      expect(() => compileHogQL(ast, { variables: {} })).toThrow('Unsupported node: HogQLXTag');
      expect(() => compileHogQL({ node: 'Program' }, { variables: {} })).toThrow('Unsupported node: Program');
    });

    it('refuses an AST nested deeper than 64 levels without overflowing the stack', () => {
      let expr: HogQLNode = { node: 'Constant', value: 1 };
      for (let level = 0; level < 100_000; level++) expr = { node: 'Not', expr };
      expect(() => compileHogQL({ node: 'SelectQuery', select: [expr] }, { variables: {} })).toThrow('Query is nested too deeply (more than 64 levels).');
    });
  });

  describe('checks calls', () => {
    it.each([
      ['SELECT toStartOfDay(timestamp, 1, 2) FROM events', "Function 'toStartOfDay' expects 1 argument, found 3"],
      ['SELECT if(1, 2) FROM events', "Function 'if' expects 3 arguments, found 2"],
      ['SELECT coalesce()', "Function 'coalesce' expects at least 1 argument, found 0"],
      ['SELECT substring(event) FROM events', "Function 'substring' expects at least 2 arguments, found 1"],
      ['SELECT count(event, event) FROM events', "Aggregation 'count' expects at most 1 argument, found 2"],
      ['SELECT quantile(properties.n) FROM events', "Aggregation 'quantile' requires parameters in addition to arguments"],
      ['SELECT sum(1)(event) FROM events', "Aggregation 'sum' does not take parameters"],
      ['SELECT count(count()) FROM events', "Aggregation 'count' cannot be nested inside another aggregation."],
      ['SELECT event FROM events WHERE count() > 1', "Aggregation 'count' is not allowed in WHERE."],
      ['SELECT count() FROM events GROUP BY count()', "Aggregation 'count' is not allowed in GROUP BY."],
      ['SELECT lower(1)', "Function 'lower' expects a String as argument 1, got Integer"],
      ['SELECT sum(event) FROM events', 'sum expects a number, got String'],
      ['SELECT sum(*) FROM events', "Cannot use '*' in sum()"],
      ["SELECT dateDiff('fortnight', now(), now())", 'dateDiff expects a unit'],
      ['SELECT toStartOfWeek(now(), 12)', 'toStartOfWeek expects a week mode from 0 to 9'],
      ["SELECT JSONExtractString(event, 'a') FROM events", 'JSONExtractString expects a JSON document (such as properties) as its first argument'],
      ["SELECT count() FROM events WHERE timestamp > 'yesterday'", "Cannot parse 'yesterday' as a DateTime"],
      ["SELECT if(1, 'a', 2)", 'if cannot mix String and Integer values'],
      // Names of JavaScript's own object members are no keys of our tables.
      ["SELECT dateDiff('__proto__', now(), now())", 'dateDiff expects a unit'],
      ["SELECT toDayOfWeek(now(), 'constructor')", 'toDayOfWeek expects a mode from 0 to 3'],
      ['SELECT constructor(1)', 'Unsupported function: constructor'],
      ['SELECT 1 FROM __proto__', 'Unknown table: __proto__'],
    ])('%s', async (query, message) => {
      expect((await refusal(query)).message).toContain(message);
    });
  });

  it('answers a 400 naming the query', async () => {
    expect((await refusal('SELECT pg_sleep(1)')).extensions).toMatchObject({ code: 'invalid_input', type: 'validation_error', attr: 'query', status: 400 });
  });

  it('never writes a name from the query into the SQL', async () => {
    const compiled = await compile('WITH "x""; drop" AS (SELECT event AS "a""b" FROM events) SELECT "a""b" AS "c"" --" FROM "x""; drop" AS "t""1"');
    expect(compiled.sql).not.toMatch(/drop|--|a"b/);
    expect(compiled.columns).toEqual([{ name: 'c" --', type: 'String' }]);
  });
});
