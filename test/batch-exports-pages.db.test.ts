import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openExportPages } from '../subgraphs/endpoints/exports/export-pages.js';
import { checkExportQuery, type ExportKeyset, type ExportPage, type ExportTime } from '../subgraphs/endpoints/exports/export-query.js';
import { PAGE_ROWS } from '../subgraphs/batch-exports/runs/run.pages.js';
import { subgraphNamed } from '../subgraphs/index.js';
import { clickhouseFor } from '../subgraphs/shared/clickhouse/clickhouse.registry.js';
import { ormOptions } from '../subgraphs/shared/db/orm.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { backfill, createExport, runsOf, s3Destination, startS3, type S3Store } from './kit/batch-exports.js';
import { ingest } from './kit/endpoints.js';
import { TEST_EVENTS_STORE } from './kit/events-store.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

/** The result byte cap of this suite: a few dozen of its wide events. */
const MAX_RESULT_BYTES = 256 * 1024;
const DAY = Date.UTC(2026, 0, 5);

let stack: Stack;
let owner: Tenant;
let store: S3Store;
let orm: MikroORM;
/** Wide events of one day, two at each time (the keyset's tie between pages). */
const events = Array.from({ length: 600 }, (_, index) => ({
  uuid: crypto.randomUUID(),
  event: '$pageview',
  distinct_id: `user-${index % 7}`,
  timestamp: new Date(DAY + Math.floor(index / 2) * 60_000).toISOString(),
  properties: { index, padding: 'x'.repeat(4000) },
}));

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl'), env: { QUERY_MAX_RESULT_BYTES: String(MAX_RESULT_BYTES) } });
  owner = await seedTenant(inject('databaseUrl'), 'export-pages');
  store = await startS3();
  orm = await MikroORM.init(ormOptions(subgraphNamed('endpoints'), inject('databaseUrl'), 1));
  for (let offset = 0; offset < events.length; offset += 100) await ingest(stack, owner, events.slice(offset, offset + 100));
});
afterAll(async () => {
  await orm?.close();
  await stack?.stop();
  await store?.stop();
});

const sorted = (uuids: string[]) => [...uuids].sort();

/** Every page of a window in turn, `limit` rows at most each: the first column of each row read. */
async function readAll(query: Awaited<ReturnType<typeof checkExportQuery>>, window: Parameters<typeof openExportPages>[3], limit: number): Promise<{ read: string[]; sizes: number[] }> {
  const pages = openExportPages(orm.em.fork(), createLogger('silent', 'test'), query, window, limit, 60_000);
  const read: string[] = [];
  const sizes: number[] = [];
  let after: ExportKeyset | null = null;
  for (;;) {
    const page: ExportPage = await pages.read(after);
    read.push(...page.rows.map((row) => String(row[0])));
    sizes.push(page.rows.length);
    if (!page.more) return { read, sizes };
    after = page.last;
  }
}

describe('export pages at the result byte cap', () => {
  it.each<ExportTime>(['timestamp', 'created_at'])('end early after a whole row and go on after it, by %s: every event read once', async (by) => {
    const query = await checkExportQuery(owner.environment_id, 'SELECT uuid, properties FROM events');
    const { read, sizes } = await readAll(query, { teamId: owner.environment_id, by, start: null, end: new Date() }, PAGE_ROWS);
    expect(sizes.length).toBeGreaterThan(2);
    expect(sizes.slice(0, -1).every((size) => size > 0 && size < PAGE_ROWS)).toBe(true);
    expect(read).toHaveLength(events.length);
    expect(sorted(read)).toEqual(sorted(events.map((event) => event.uuid)));
  });

  it('a backfill of wide events completes with every event exported once across early-ended pages', async () => {
    const created = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'wide' }) });
    await backfill(stack, owner, created.id, new Date(DAY).toISOString(), new Date(DAY + 86_400_000).toISOString());
    const [run] = await runsOf(stack, owner, created.id);
    expect(run).toMatchObject({ status: 'Completed', records_completed: events.length });
    const keys = await store.keys('wide/');
    const records = (await Promise.all(keys.map(async (key) => (await store.read(key)).toString().trim().split('\n')))).flat().map((line) => JSON.parse(line));
    expect(sorted(records.map((record) => record.uuid))).toEqual(sorted(events.map((event) => event.uuid)));
  });
});

describe('export pages bounded from above', () => {
  it.each<ExportTime>(['timestamp', 'created_at'])('go on past pages that filters leave empty, by %s: each matching event once', async (by) => {
    const wanted = [5, 333, 599];
    const query = await checkExportQuery(owner.environment_id, `SELECT uuid FROM events WHERE properties.index IN (${wanted.map((index) => `'${index}'`).join(', ')})`);
    const { read, sizes } = await readAll(query, { teamId: owner.environment_id, by, start: null, end: new Date() }, 50);
    // A bound every 50 events of the environment: most pages hold none of the three.
    expect(sizes.filter((size) => size === 0).length).toBeGreaterThan(3);
    expect(sizes.length).toBeGreaterThanOrEqual(events.length / 50);
    expect(sorted(read)).toEqual(sorted(wanted.map((index) => events[index]!.uuid)));
  });
});

describe('export pages over a uuid stored twice', () => {
  // PostgreSQL stores a uuid once (event_ids); ClickHouse's ReplacingMergeTree holds a repeated insert until it merges.
  it.skipIf(TEST_EVENTS_STORE !== 'clickhouse').each<ExportTime>(['timestamp', 'created_at'])('read each event once, by %s, at the copy a merge keeps', async (by) => {
    const twice = await seedTenant(inject('databaseUrl'), `export-pages-twice-${by}`);
    // The event written twice first in uuid order: its older copy, which no page exports, starts the first page.
    const uuid = (index: number) => (index === 3 ? '00000000-0000-4000-8000-000000000001' : crypto.randomUUID());
    const stored = Array.from({ length: 5 }, (_, index) => ({ uuid: uuid(index), event: 'tick', distinct_id: 'u', timestamp: new Date(DAY + index * 1000).toISOString(), properties: { index } }));
    await ingest(stack, twice, stored);
    const clickhouse = clickhouseFor(inject('databaseUrl'))!;
    const table = `${clickhouse.database}.events`;
    const rows = await clickhouse.query<Record<string, unknown>>(`SELECT uuid, event, properties, timestamp, team_id, distinct_id, created_at FROM ${table} WHERE team_id = {team:Int64}`, { team: twice.environment_id });
    const copy = (uuid: string) => rows.find((row) => row.uuid === uuid)!;
    // One event inserted again as it was, another an hour later (a second write the merge would keep).
    const later = new Date(new Date(`${String(copy(stored[3]!.uuid).created_at).replace(' ', 'T')}Z`).getTime() + 3_600_000);
    await clickhouse.insert({
      table,
      format: 'JSONEachRow',
      values: [copy(stored[1]!.uuid), { ...copy(stored[3]!.uuid), created_at: later.toISOString().replace('T', ' ').replace('Z', '') }],
      clickhouse_settings: { insert_deduplicate: 0 },
    });
    const query = await checkExportQuery(twice.environment_id, 'SELECT uuid FROM events');
    for (const limit of [1, 2, 10]) {
      const { read } = await readAll(query, { teamId: twice.environment_id, by, start: null, end: new Date(Date.now() + 7_200_000) }, limit);
      expect(sorted(read)).toEqual(sorted(stored.map((event) => event.uuid)));
      if (by === 'created_at') expect(read.at(-1)).toBe(stored[3]!.uuid);
    }
  });
});
