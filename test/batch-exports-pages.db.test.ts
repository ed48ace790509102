import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkExportQuery, readExportPage, type ExportKeyset, type ExportTime } from '../subgraphs/endpoints/exports/export-query.js';
import { PAGE_ROWS } from '../subgraphs/batch-exports/runs/run.pages.js';
import { subgraphNamed } from '../subgraphs/index.js';
import { ormOptions } from '../subgraphs/shared/db/orm.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { backfill, createExport, runsOf, s3Destination, startS3, type S3Store } from './kit/batch-exports.js';
import { ingest } from './kit/endpoints.js';
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

describe('export pages at the result byte cap', () => {
  it.each<ExportTime>(['timestamp', 'created_at'])('end early after a whole row and go on after it, by %s: every event read once', async (by) => {
    const query = await checkExportQuery(owner.environment_id, 'SELECT uuid, properties FROM events');
    const window = { teamId: owner.environment_id, by, start: null, end: new Date() };
    const read: string[] = [];
    const sizes: number[] = [];
    let after: ExportKeyset | null = null;
    for (;;) {
      const page = await readExportPage(orm.em.fork(), createLogger('silent', 'test'), query, window, after, PAGE_ROWS, 60_000);
      read.push(...page.rows.map((row) => String(row[0])));
      sizes.push(page.rows.length);
      if (!page.more) break;
      after = page.last;
    }
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
    const window = { teamId: owner.environment_id, by, start: null, end: new Date() };
    const read: string[] = [];
    const sizes: number[] = [];
    let after: ExportKeyset | null = null;
    for (;;) {
      const page = await readExportPage(orm.em.fork(), createLogger('silent', 'test'), query, window, after, 50, 60_000);
      read.push(...page.rows.map((row) => String(row[0])));
      sizes.push(page.rows.length);
      if (!page.more) break;
      after = page.last;
    }
    // A bound every 50 events of the environment: most pages hold none of the three.
    expect(sizes.filter((size) => size === 0).length).toBeGreaterThan(3);
    expect(sizes.length).toBeGreaterThanOrEqual(events.length / 50);
    expect(sorted(read)).toEqual(sorted(wanted.map((index) => events[index]!.uuid)));
  });
});
