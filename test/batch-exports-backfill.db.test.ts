import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { backfill, createExport, drainExports, ingestedAt, runsOf, s3Destination, startReceiver, startS3, type S3Store } from './kit/batch-exports.js';
import { sql } from './kit/db.js';
import { ingest } from './kit/endpoints.js';
import { daysAgo } from './kit/ingest.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

const DAY_MS = 86_400_000;

let stack: Stack;
let owner: Tenant;
let store: S3Store;
/** The range a user backfills after importing history: the five days before today (UTC). */
const today = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
const range = { start_at: new Date(today.getTime() - 5 * DAY_MS).toISOString(), end_at: today.toISOString() };
/** The history imported: dated days ago, ingested now; some events share a time (the keyset's tie). */
const history = Array.from({ length: 40 }, (_, index) => ({
  uuid: crypto.randomUUID(),
  event: index % 4 === 0 ? 'purchase' : '$pageview',
  distinct_id: `user-${index % 5}`,
  timestamp: daysAgo(2 + (index % 3), Math.floor(index / 2) * 60_000),
  properties: { index },
}));

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  const other = await seedTenant(inject('databaseUrl'), 'backfill-other');
  owner = await seedTenant(inject('databaseUrl'), 'backfill');
  store = await startS3();
  await ingest(stack, owner, history);
  // Another organization's history at the same times: never in the owner's files.
  await ingest(stack, other, history.map((event) => ({ ...event, uuid: crypto.randomUUID() })));
});
afterAll(async () => {
  await stack?.stop();
  await store?.stop();
});

const lines = (buffer: Buffer) => buffer.toString().trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));

/** Every record the export wrote under `prefix`, file by file in key order. */
async function exported(prefix: string): Promise<any[]> {
  const keys = await store.keys(`${prefix}/`);
  return (await Promise.all(keys.map(async (key) => lines(await store.read(key))))).flat();
}

const sorted = (uuids: string[]) => [...uuids].sort();
const time = (iso: string) => new Date(iso).getTime();
/** The events whose timestamp is in a run's interval. */
const within = <T extends { timestamp: string }>(events: T[], run: { data_interval_start: string; data_interval_end: string }) =>
  events.filter((event) => time(event.timestamp) >= time(run.data_interval_start) && time(event.timestamp) < time(run.data_interval_end));

describe('backfills export by event time', () => {
  it('exports history imported now by its own dates: every event once, one file per day it happened', async () => {
    const created = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'history' }) });
    await backfill(stack, owner, created.id, range.start_at, range.end_at);
    const runs = await runsOf(stack, owner, created.id);
    expect(runs.map((run) => run.status)).toEqual(Array(5).fill('Completed'));
    expect(runs.map((run) => run.records_completed)).toEqual(runs.map((run) => within(history, run).length));
    const records = await exported('history');
    expect(sorted(records.map((record) => record.uuid))).toEqual(sorted(history.map((event) => event.uuid)));
    for (const run of runs) expect(sorted(within(records, run).map((record) => record.uuid))).toEqual(sorted(within(history, run).map((event) => event.uuid)));
  });

  it('exports `_inserted_at` as the event time in a backfill, as PostHog\'s backfill view does', async () => {
    const created = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'inserted' }), hogql_query: 'SELECT uuid, timestamp, _inserted_at, created_at FROM events' });
    await backfill(stack, owner, created.id, range.start_at, range.end_at);
    const records = await exported('inserted');
    expect(records).toHaveLength(history.length);
    for (const record of records) {
      expect(record._inserted_at).toBe(record.timestamp);
      expect(time(record.created_at)).toBeGreaterThan(time(record.timestamp));
    }
  });

  it('a scheduled run still selects by ingestion time: the imported events go with the day they arrived', async () => {
    const created = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'scheduled' }), hogql_query: 'SELECT uuid, timestamp, _inserted_at, created_at FROM events' });
    // As if the import had arrived yesterday, and the schedule had stood since the range began.
    const yesterday = new Date(today.getTime() - DAY_MS / 2).toISOString();
    await ingestedAt(inject('databaseUrl'), owner.environment_id, new Date(yesterday));
    await sql(inject('databaseUrl'), 'update batch_exports.batch_exports set scheduled_until = $2 where id = $1', [created.id, range.start_at]);
    await drainExports(stack, owner);
    const runs = await runsOf(stack, owner, created.id);
    expect(runs.map((run) => [run.backfill, run.status, run.records_completed])).toEqual([...Array(4).fill([null, 'Completed', 0]), [null, 'Completed', history.length]]);
    const records = await exported('scheduled');
    expect(sorted(records.map((record) => record.uuid))).toEqual(sorted(history.map((event) => event.uuid)));
    expect(new Set(records.map((record) => [time(record._inserted_at), time(record.created_at)].join()))).toEqual(new Set([[time(yesterday), time(yesterday)].join()]));
  });
});

describe('the interval reads the events\' own columns', () => {
  // Aliases that name the columns the interval, the keyset and the filters read, over other values.
  const query = "SELECT uuid AS id, now() AS created_at, toDateTime('2000-01-01') AS timestamp, 'x' AS uuid, 'renamed' AS event, properties.index AS index FROM events AS e";
  const purchases = history.filter((event) => event.event === 'purchase');

  it('a backfill exports every event of its range once, whatever the aliases', async () => {
    const created = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'aliased-backfill', include_events: ['purchase'] }), hogql_query: query });
    await backfill(stack, owner, created.id, range.start_at, range.end_at);
    const records = await exported('aliased-backfill');
    expect(sorted(records.map((record) => record.id))).toEqual(sorted(purchases.map((event) => event.uuid)));
    expect(new Set(records.map((record) => [record.uuid, record.event, record.timestamp].join()))).toEqual(new Set([['x', 'renamed', '2000-01-01T00:00:00Z'].join()]));
  });

  it('a scheduled run exports the events ingested in its interval, not those its aliases name', async () => {
    const created = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'aliased-scheduled', include_events: ['purchase'] }), hogql_query: query });
    // The events ingested yesterday, the one interval scheduled.
    await ingestedAt(inject('databaseUrl'), owner.environment_id, new Date(time(range.end_at) - DAY_MS / 2));
    await sql(inject('databaseUrl'), "update batch_exports.batch_exports set scheduled_until = $2::timestamptz - interval '1 day' where id = $1", [created.id, range.end_at]);
    await drainExports(stack, owner);
    const runs = await runsOf(stack, owner, created.id);
    expect(runs.map((run) => [run.status, run.records_completed])).toEqual([['Completed', purchases.length]]);
    expect(sorted((await exported('aliased-scheduled')).map((record) => record.id))).toEqual(sorted(purchases.map((event) => event.uuid)));
  });
});

describe('a backfill run taken over', () => {
  it('resumes in the order of the attempt that died: the rows its accepted chunks held are not sent again', async () => {
    const receiver = await startReceiver();
    try {
      const created = await createExport(stack, owner, { destination: { type: 'HTTP', config: { url: receiver.url, token: 'receiver-token' } } });
      await backfill(stack, owner, created.id, range.start_at, range.end_at);
      const run = (await runsOf(stack, owner, created.id)).find((candidate) => candidate.records_completed > 0);
      const [first] = receiver.received.splice(0).filter((request) => request.headers['idempotency-key'] === `${run.id}-0`);
      const sent = first!.body.trim().split('\n').map((line) => JSON.parse(line).uuid as string);
      expect(sent).toHaveLength(run.records_completed);
      // As if an attempt had had its first chunk of five rows accepted and then died (its heartbeat long stale).
      const cursor = { chunks: 1, records: 5, fingerprint: run.cursor.fingerprint };
      await sql(inject('databaseUrl'), "update batch_exports.batch_export_runs set status = 'Running', heartbeat_at = now() - interval '1 hour', cursor = $2 where id = $1", [run.id, cursor]);
      await drainExports(stack, owner);
      const [after] = (await runsOf(stack, owner, created.id)).filter((candidate) => candidate.id === run.id);
      expect(after).toMatchObject({ status: 'Completed', records_completed: run.records_completed });
      expect(receiver.received.map((request) => request.headers['idempotency-key'])).toEqual([`${run.id}-1`]);
      expect(receiver.received[0]!.body.trim().split('\n').map((line) => JSON.parse(line).uuid)).toEqual(sent.slice(5));
    } finally {
      await receiver.stop();
    }
  });
});
