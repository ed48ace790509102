import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testChdbUrl } from '../../../test/kit/events-store.js';
import { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { ClickHouseDdl, quoteString } from '../../shared/clickhouse/clickhouse.ddl.js';
import { jsonPropertySql } from '../../shared/clickhouse/clickhouse.json.js';
import { migrateClickHouse } from '../../shared/clickhouse/clickhouse.migrate.js';
import { forgetClickHouse, registerClickHouse } from '../../shared/clickhouse/clickhouse.registry.js';
import { createLogger } from '../../shared/logger.js';
import { materializeProperty } from './clickhouse.materialize.js';
import { addMaterializedColumn, markMaterializedColumnReady, materializedColumnName, readMaterializedColumns } from './clickhouse.materialized.js';
import { readyMaterializedColumns, refreshMaterializedColumns } from './clickhouse.materialized-cache.js';
import { clickhouseMigrations } from './clickhouse.migrations.js';

/** Properties JSON text as clients send it: every kind of value under `k`, spelled as written. */
const DOCUMENTS = [
  '{"k":"plain"}',
  '{"k":"é \\"q\\" \\\\ \\n\\t \\u00e9 \\ud83d\\ude00 😀"}',
  '{"k":""}',
  '{"k":1.50}',
  '{"k":-0}',
  '{"k":1e3}',
  '{"k":12345678901234567890}',
  '{"k":true}',
  '{"k":false}',
  '{"k":null}',
  '{"k":{"a":[1, "x", null]}}',
  '{"k":[]}',
  '{"k" : "spaced" }',
  '{"other":1}',
  '{}',
  '{"k":"first","k":"second"}',
  '{"K":"case"}',
  '',
  'not json',
  '{"é":"key outside ASCII","it\'s":"a quote","a\\\\b":"a backslash","a.b":"a dot"}',
];
const PROPERTIES = ['k', 'é', "it's", 'a\\b', 'a.b'];
const TEAM = 7;

let clickhouse: ClickHouse;
const registeredAs = 'postgres://materialized-columns-test/none';

async function insert(documents: string[]): Promise<void> {
  await clickhouse.insert({
    table: `${clickhouse.database}.events`,
    format: 'JSONEachRow',
    values: documents.map((properties, index) => ({ uuid: crypto.randomUUID(), event: 'e', properties, timestamp: `2024-03-0${1 + (index % 9)} 00:00:00`, team_id: TEAM, distinct_id: `d${index}`, created_at: '2024-03-01 00:00:00' })),
  });
}

/** Each row's column next to the printer's read of the JSON, for `property`. */
async function bothReads(property: string, column: string): Promise<{ column: string | null; json: string | null }[]> {
  return clickhouse.query(`SELECT \`${column}\` AS column, ${jsonPropertySql(`properties, {property:String}`)} AS json FROM ${clickhouse.database}.events ORDER BY uuid`, { property });
}

beforeAll(async () => {
  clickhouse = ClickHouse.open(testChdbUrl(`materialized_${Date.now()}`));
  await migrateClickHouse(clickhouse, 'ingestion', clickhouseMigrations, createLogger('silent', 'test'));
  registerClickHouse(registeredAs, clickhouse);
});
afterAll(async () => {
  forgetClickHouse(registeredAs, clickhouse);
  await clickhouse?.close();
});

describe(materializeProperty.name, () => {
  it('fills old rows and computes new ones exactly as the JSON is read, for every kind of value', async () => {
    await insert(DOCUMENTS);
    const outcomes = [];
    for (const property of PROPERTIES) outcomes.push(await materializeProperty(clickhouse, property));
    expect(outcomes.map(({ property, column, state }) => ({ property, column, state }))).toEqual([
      { property: 'k', column: 'mat_k', state: 'materialized' },
      { property: 'é', column: 'mat__', state: 'materialized' },
      { property: "it's", column: 'mat_it_s', state: 'materialized' },
      { property: 'a\\b', column: 'mat_a_b', state: 'materialized' },
      // Another property took the plain name: a suffix of its hash keeps the two apart.
      { property: 'a.b', column: expect.stringMatching(/^mat_a_b_[0-9a-f]{6}$/), state: 'materialized' },
    ]);
    await insert(DOCUMENTS);
    for (const { property, column } of outcomes) {
      const rows = await bothReads(property, column);
      expect(rows).toHaveLength(DOCUMENTS.length * 2);
      for (const row of rows) expect(row.column, property).toBe(row.json);
    }
    const values = (await bothReads('k', 'mat_k')).map((row) => row.column);
    // ClickHouse writes numbers and objects again in its own spelling, on both reads alike.
    for (const expected of ['plain', 'é "q" \\ \n\t é 😀 😀', '', '1.5', '0', '1000', '12345678901234567890', 'true', 'false', '{"a":[1,"x",null]}', '[]', 'spaced', 'first', null]) expect(values).toContain(expected);
  });

  it('leaves a filled column alone, and goes on with one whose fill a run left unfinished', async () => {
    expect(await materializeProperty(clickhouse, 'k')).toMatchObject({ column: 'mat_k', state: 'already' });
    // A run stopped after adding the column: it is not filled, so queries do not read it yet.
    const ddl = new ClickHouseDdl(clickhouse.database);
    for (const statement of addMaterializedColumn(ddl, 'half', 'mat_half')) await clickhouse.command(statement);
    expect((await readMaterializedColumns(clickhouse)).find((column) => column.property === 'half')).toEqual({ property: 'half', column: 'mat_half', ready: false });
    expect((await refreshMaterializedColumns(clickhouse)).has('half')).toBe(false);
    expect(await materializeProperty(clickhouse, 'half')).toMatchObject({ column: 'mat_half', state: 'materialized' });
    expect((await readMaterializedColumns(clickhouse)).find((column) => column.property === 'half')).toEqual({ property: 'half', column: 'mat_half', ready: true });
  });
});

describe(readyMaterializedColumns.name, () => {
  it('answers the filled columns of a database as this process last read them', async () => {
    await refreshMaterializedColumns(clickhouse);
    const ready = readyMaterializedColumns(clickhouse.database);
    expect(ready.get('k')).toBe('mat_k');
    expect(ready.get('half')).toBe('mat_half');
    expect(readyMaterializedColumns('no_such_database').size).toBe(0);
  });
});

describe(materializedColumnName.name, () => {
  it("is PostHog's: mat_ and the property with what is not a letter, a digit or $ written _", () => {
    expect(materializedColumnName('$browser', new Set())).toBe('mat_$browser');
    expect(materializedColumnName('$feature/new-flow', new Set())).toBe('mat_$feature_new_flow');
    expect(materializedColumnName('a-b', new Set(['mat_a_b']))).toBe(materializedColumnName('a-b', new Set(['mat_a_b'])));
  });
});

// No cluster runs on one machine: ClickHouse's own parser reads the statements a cluster is given.
describe('the cluster DDL of a materialized column', () => {
  it('adds it to the sharded table and the Distributed one, fills the sharded one, marks both, all ON CLUSTER', async () => {
    const ddl = new ClickHouseDdl('posthog', 'events_cluster');
    const added = addMaterializedColumn(ddl, "it's", 'mat_it_s');
    const marked = markMaterializedColumnReady(ddl, "it's", 'mat_it_s');
    const filled = ddl.materializeColumn({ name: 'events', shardBy: 'sipHash64(distinct_id)' }, 'mat_it_s');
    expect(added.map((statement) => statement.split(' ON CLUSTER')[0])).toEqual(['ALTER TABLE posthog.sharded_events', 'ALTER TABLE posthog.events']);
    expect(marked.map((statement) => statement.split(' ON CLUSTER')[0])).toEqual(['ALTER TABLE posthog.sharded_events', 'ALTER TABLE posthog.events']);
    expect(filled).toBe('ALTER TABLE posthog.sharded_events ON CLUSTER events_cluster MATERIALIZE COLUMN `mat_it_s`');
    for (const statement of [...added, ...marked, filled]) {
      const [row] = await clickhouse.query<{ text: string }>('SELECT formatQuery({statement:String}) AS text', { statement });
      expect(row!.text, statement).toMatch(/ON CLUSTER events_cluster/);
    }
    expect(added[0]).toContain(`MATERIALIZED ${jsonPropertySql(`properties, ${quoteString("it's")}`)}`);
    expect(ddl.systemTable('mutations')).toBe('clusterAllReplicas(events_cluster, system.mutations)');
  });
});
