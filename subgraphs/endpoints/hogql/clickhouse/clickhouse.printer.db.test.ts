import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testChdbUrl } from '../../../../test/kit/events-store.js';
import { startStack, type Stack } from '../../../../test/kit/stack.js';
import type { ClickHouse, ReadLimits } from '../../../shared/clickhouse/clickhouse.js';
import { clickhouseFor } from '../../../shared/clickhouse/clickhouse.registry.js';
import { ingestionFacade } from '../../../ingestion/facade.js';
import { HOGQL_CASES, HOGQL_FUNCTION_LISTS, HOGQL_ROWS, sortedRows, TRENDS_CASE } from '../hogql-cases.fixture.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';
import { trendsToHogQL } from '../trends/trends.query.js';
import type { CompileOptions, HogQLNode } from '../hogql.types.js';
import { printHogQLForClickHouse } from './clickhouse.printer.js';

const TEAM = 1;
/** Another team's rows, one of each kind: any of them read would change the answers. */
const OTHER_TEAM = 2;
const LIMITS: ReadLimits = { seconds: 10, rows: 100_000, bytes: 10_000_000, memoryBytes: 1_000_000_000 };

let stack: Stack;
let clickhouse: ClickHouse;

/** The fixture's rows in the events store's tables, for `team`. */
async function load(team: number): Promise<void> {
  const table = (name: string) => `${clickhouse.database}.${name}`;
  const time = (iso: string) => iso.replace('T', ' ').replace('Z', '');
  await clickhouse.insert({
    table: table('events'),
    format: 'JSONEachRow',
    values: HOGQL_ROWS.events.map((event) => ({ ...event, team_id: team, properties: JSON.stringify(event.properties), timestamp: time(event.timestamp), created_at: time(event.timestamp) })),
  });
  await clickhouse.insert({
    table: table('person'),
    format: 'JSONEachRow',
    values: HOGQL_ROWS.persons.map((person) => ({ ...person, team_id: team, properties: JSON.stringify(person.properties), created_at: time(person.created_at), is_identified: person.is_identified ? 1 : 0, version: 1 })),
  });
  await clickhouse.insert({ table: table('person_distinct_id2'), format: 'JSONEachRow', values: HOGQL_ROWS.distinctIds.map((row) => ({ ...row, team_id: team, version: 1 })) });
  await clickhouse.insert({
    table: table('groups'),
    format: 'JSONEachRow',
    values: HOGQL_ROWS.groups.map((group) => ({ group_type_index: group.index, group_key: group.key, created_at: time(group.created_at), _timestamp: time(group.updated_at), team_id: team, group_properties: JSON.stringify(group.properties) })),
  });
}

// A platform on chDB makes the events store's tables; the fixture's rows go straight into them.
beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl'), env: { CLICKHOUSE_URL: testChdbUrl(`${new URL(inject('databaseUrl')).pathname.slice(1)}_printer`) } });
  clickhouse = clickhouseFor(inject('databaseUrl'))!;
  await load(TEAM);
  await load(OTHER_TEAM);
});
afterAll(() => stack?.stop());

async function run(ast: HogQLNode, options: Partial<CompileOptions> = {}): Promise<unknown[][]> {
  return (await runPrinted(ast, options)).rows;
}

async function runPrinted(ast: HogQLNode, options: Partial<CompileOptions> = {}): Promise<{ rows: unknown[][]; sql: string }> {
  const printed = printHogQLForClickHouse(ast, { variables: {}, ...options }, { environmentId: TEAM, database: clickhouse.database });
  const rows = await clickhouse.read<Record<string, unknown>>(printed.sql, printed.params, LIMITS, printed.settings);
  return { rows: rows.slice(0, printed.limit).map((row) => printed.columns.map((_, index) => row[`_c${index + 1}`])), sql: printed.sql };
}

describe('HogQL printed for ClickHouse', () => {
  it.each(HOGQL_CASES)('$name, as on PostgreSQL', async ({ query, options, rows, clickhouseRows, unordered }) => {
    const answer = await run(await parseHogQLSelect(TEAM, query), options);
    const expected = clickhouseRows ?? rows;
    expect(unordered ? sortedRows(answer) : answer).toEqual(unordered ? sortedRows(expected) : expected);
  });

  it('runs every function the compiler maps', async () => {
    for (const list of HOGQL_FUNCTION_LISTS) await expect(run(await parseHogQLSelect(TEAM, `SELECT ${list} FROM events`)), list).resolves.toBeDefined();
  });

  it('runs a TrendsQuery through the same printer, as on PostgreSQL', async () => {
    expect(await run(trendsToHogQL(TRENDS_CASE.query))).toEqual(TRENDS_CASE.rows);
  });

  it('stops a result past its bytes, and the reader answers the next query alone', async () => {
    const huge = printHogQLForClickHouse(await parseHogQLSelect(TEAM, "select repeat(repeat('x', 1000), 1000) as s from events a, events b limit 120"), { variables: {} }, { environmentId: TEAM, database: clickhouse.database });
    for (let time = 0; time < 2; time++) await expect(clickhouse.read(huge.sql, huge.params, { ...LIMITS, bytes: 20 * 1_048_576 }, huge.settings)).rejects.toThrow(/Limit for result exceeded/);
    expect(await run(await parseHogQLSelect(TEAM, 'select 1 + 1'))).toEqual([[2]]);
  });

  it('binds every value as a typed parameter and filters every table reference by the team', async () => {
    const printed = printHogQLForClickHouse(await parseHogQLSelect(TEAM, "SELECT count() FROM events e JOIN persons p ON p.id = e.person_id WHERE e.event = 'x'' OR 1=1'"), { variables: {} }, { environmentId: TEAM, database: 'db' });
    expect(printed.sql).not.toContain("OR 1=1");
    expect(Object.values(printed.params)).toContain("x' OR 1=1");
    const references = printed.sql.match(/FROM db\.\w+/g) ?? [];
    expect(references.length).toBe(3);
    expect(printed.sql.match(/FROM db\.\w+ WHERE team_id = \{p1:Int64\}/g)).toHaveLength(3);
    expect(printed.params.p1).toBe(TEAM);
  });
});

/** Every top-level property the cases read, each a materialized column filled for the rows loaded before it. */
const MATERIALIZED = ['$browser', 'n', 'flag', 'nested', 'list', 'plan', 'v', 'missing'];

// Last: the columns stay, and every case above ran before them on the JSON.
describe('HogQL printed for ClickHouse, with materialized property columns', () => {
  beforeAll(async () => {
    for (const property of MATERIALIZED) await ingestionFacade.materializedColumns.materialize(clickhouse, property);
    await ingestionFacade.materializedColumns.refresh(clickhouse);
  });

  it.each(HOGQL_CASES)('$name: the same rows from the columns', async ({ query, options, rows, clickhouseRows, unordered }) => {
    const answer = await run(await parseHogQLSelect(TEAM, query), options);
    const expected = clickhouseRows ?? rows;
    expect(unordered ? sortedRows(answer) : answer).toEqual(unordered ? sortedRows(expected) : expected);
  });

  it('reads the columns for top-level properties in every clause, and the JSON for deeper ones', async () => {
    const { sql } = await runPrinted(await parseHogQLSelect(TEAM, "SELECT properties.$browser, properties['v'], properties.nested.a.b, count() FROM events WHERE properties.flag = 'true' GROUP BY 1, 2, 3, properties.n ORDER BY properties.n"));
    for (const column of ['`mat_$browser`', '`mat_v`', '`mat_flag`', '`mat_n`']) expect(sql).toContain(`"_t1".${column}`);
    expect(sql).not.toContain('"_t1".`mat_nested`');
    expect(sql).toMatch(/JSONExtractString\("_t\d+"\."properties", (\{p\d+:String\}, ){2}\{p\d+:String\}\)/);
  });

  it('runs a TrendsQuery breakdown on the column, as on PostgreSQL', async () => {
    const { rows, sql } = await runPrinted(trendsToHogQL(TRENDS_CASE.query));
    expect(sql).toContain('`mat_$browser`');
    expect(rows).toEqual(TRENDS_CASE.rows);
  });

  it("keeps reading the JSON of persons' properties", async () => {
    const { sql } = await runPrinted(await parseHogQLSelect(TEAM, "SELECT count() FROM events WHERE person.properties.plan = 'pro'"));
    expect(sql).not.toMatch(/"_t\d+"\.`mat_plan`/);
    expect(sql).toMatch(/JSONExtractString\("_t1_pdi_person"\."properties", \{p\d+:String\}\)/);
  });
});
