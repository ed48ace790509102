import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { backfill, createExport, drainExports, exportsPath, ingestedAsTheyHappened, runsOf, s3Destination, startS3, type S3Store } from './kit/batch-exports.js';
import { sql } from './kit/db.js';
import { api } from './kit/http.js';
import { ingest, SEED_EVENTS } from './kit/endpoints.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
let store: S3Store;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  owner = await seedTenant(inject('databaseUrl'), 'exports-s3');
  store = await startS3();
  await ingest(stack, owner, SEED_EVENTS);
  await ingestedAsTheyHappened(inject('databaseUrl'), owner.environment_id);
});
afterAll(async () => {
  await stack?.stop();
  await store?.stop();
});

const lines = (buffer: Buffer) => buffer.toString().trim().split('\n').map((line) => JSON.parse(line));

describe('S3 destination', () => {
  it('exports each day of a backfill as one JSON lines file, gzipped, under the templated prefix', async () => {
    const created = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'daily/{year}-{month}/{table}', compression: 'gzip' }) });
    expect(created.destination.config).not.toHaveProperty('aws_secret_access_key');
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-08T00:00:00Z');
    const runs = await runsOf(stack, owner, created.id);
    expect(runs.map((run) => [run.status, run.records_completed, run.latest_error])).toEqual([
      ['Completed', 7, null],
      ['Completed', 2, null],
      ['Completed', 1, null],
    ]);
    const keys = await store.keys('daily/');
    expect(keys).toEqual([
      'daily/2026-01/events/2026-01-05T00:00:00+00:00-2026-01-06T00:00:00+00:00.jsonl.gz',
      'daily/2026-01/events/2026-01-06T00:00:00+00:00-2026-01-07T00:00:00+00:00.jsonl.gz',
      'daily/2026-01/events/2026-01-07T00:00:00+00:00-2026-01-08T00:00:00+00:00.jsonl.gz',
    ]);
    const first = lines(gunzipSync(await store.read(keys[0]!)));
    expect(first).toHaveLength(7);
    expect(Object.keys(first[0])).toEqual(['uuid', 'timestamp', '_inserted_at', 'created_at', 'event', 'properties', 'distinct_id', 'elements_chain', 'person_properties', 'person_id']);
    const purchase = lines(gunzipSync(await store.read(keys[2]!)))[0];
    expect(purchase).toMatchObject({ event: 'purchase', distinct_id: 'u1', properties: { amount: 99.5, currency: 'USD' }, person_properties: { email: 'ada@example.com' } });
  });
});

describe('S3 destination: the values of the fields', () => {
  it("exports PostHog's fields with the same values on either events store", async () => {
    const event = {
      uuid: crypto.randomUUID(),
      event: 'clicked',
      distinct_id: 'fields-user',
      timestamp: '2026-03-02T10:00:00.123456Z',
      properties: { $elements_chain: 'button:nth-child="1"', $set: { plan: 'pro' }, amount: 1.5, text: 'a "quoted" é' },
    };
    await ingest(stack, owner, [event]);
    const [person] = await sql<{ person_id: string }>(
      inject('databaseUrl'),
      'select p.uuid::text as person_id from ingestion.persons p join ingestion.person_distinct_ids d on d.person_id = p.id where d.environment_id = $1 and d.distinct_id = $2',
      [owner.environment_id, event.distinct_id],
    );
    const fields = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'fields', include_events: ['clicked'] }) });
    const custom = await createExport(stack, owner, {
      destination: s3Destination(store, { prefix: 'fields-query' }),
      hogql_query: "SELECT team_id, uuid, _inserted_at, person_properties.plan AS plan, elements_chain FROM events WHERE event = 'clicked'",
    });
    for (const created of [fields, custom]) await backfill(stack, owner, created.id, '2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z');
    const [record, ...others] = lines(await store.read((await store.keys('fields/'))[0]!));
    expect(others).toEqual([]);
    expect(record).toEqual({
      uuid: event.uuid,
      timestamp: event.timestamp,
      _inserted_at: event.timestamp,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/),
      event: 'clicked',
      properties: expect.objectContaining({ $elements_chain: 'button:nth-child="1"', amount: 1.5, text: 'a "quoted" é' }),
      distinct_id: 'fields-user',
      elements_chain: 'button:nth-child="1"',
      person_properties: expect.objectContaining({ plan: 'pro' }),
      person_id: person!.person_id,
    });
    expect(lines(await store.read((await store.keys('fields-query/'))[0]!))).toEqual([
      { team_id: owner.environment_id, uuid: event.uuid, _inserted_at: event.timestamp, plan: 'pro', elements_chain: 'button:nth-child="1"' },
    ]);
  });
});

describe('S3 destination: formats and sizes', () => {
  it('writes Parquet (snappy, gzip, brotli) that a Parquet reader reads back, times in microseconds', async () => {
    for (const compression of ['snappy', 'gzip', 'brotli']) {
      const created = await createExport(stack, owner, { destination: s3Destination(store, { prefix: `parquet-${compression}`, file_format: 'Parquet', compression }) });
      await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
      const keys = await store.keys(`parquet-${compression}/`);
      expect(keys).toEqual([`parquet-${compression}/2026-01-05T00:00:00+00:00-2026-01-06T00:00:00+00:00.parquet.${{ snappy: 'sz', gzip: 'gz', brotli: 'br' }[compression]}`]);
      const file = await store.read(keys[0]!);
      const rows = (await parquetReadObjects({ file: file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer, compressors })) as Record<string, unknown>[];
      expect(rows).toHaveLength(7);
      const pageview = rows.find((row) => row.event === '$pageview' && row.distinct_id === 'u1' && String(row.properties).includes('/home'))!;
      expect(JSON.parse(String(pageview.properties))).toMatchObject({ $browser: 'Chrome', $pathname: '/home', amount: 10 });
      expect((pageview.timestamp as Date).toISOString()).toBe('2026-01-05T10:15:00.000Z');
      expect(JSON.parse(String(pageview.person_properties))).toMatchObject({ email: 'ada@example.com' });
    }
  });

  it('brotli JSON lines decompress to the same records as plain ones', async () => {
    const plain = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'plain' }) });
    const brotli = await createExport(stack, owner, { destination: s3Destination(store, { prefix: 'brotli', compression: 'brotli' }) });
    for (const item of [plain, brotli]) await backfill(stack, owner, item.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    const [plainKey] = await store.keys('plain/');
    const [brotliKey] = await store.keys('brotli/');
    expect(brotliKey).toMatch(/\.jsonl\.br$/);
    expect(brotliDecompressSync(await store.read(brotliKey!)).toString()).toBe((await store.read(plainKey!)).toString());
  });
});

describe('S3 destination: one file per run, or split by size with a manifest', () => {
  let big: Tenant;
  beforeAll(async () => {
    big = await seedTenant(inject('databaseUrl'), 'exports-s3-big');
    // About 3 MB of JSON lines in one day.
    const padding = 'x'.repeat(900);
    const events = Array.from({ length: 3000 }, (_, index) => ({ event: '$pageview', distinct_id: `user-${index % 50}`, timestamp: new Date(Date.UTC(2026, 0, 5, 0, 0, index)).toISOString(), properties: { index, padding } }));
    for (let offset = 0; offset < events.length; offset += 1000) await ingest(stack, big, events.slice(offset, offset + 1000));
    await ingestedAsTheyHappened(inject('databaseUrl'), big.environment_id);
  });

  it('splits a run into numbered files of about max_file_size_mb, lists them in a manifest, and loses or repeats no record', async () => {
    const created = await createExport(stack, big, { destination: s3Destination(store, { prefix: 'split', max_file_size_mb: 1 }) });
    await backfill(stack, big, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    const [run] = await runsOf(stack, big, created.id);
    expect(run).toMatchObject({ status: 'Completed', records_completed: 3000 });
    const keys = await store.keys('split/');
    const base = 'split/2026-01-05T00:00:00+00:00-2026-01-06T00:00:00+00:00';
    const files = keys.filter((key) => key.endsWith('.jsonl'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(files).toEqual(files.map((_, index) => `${base}-${index}.jsonl`).sort());
    expect(JSON.parse((await store.read(`${base}_manifest.json`)).toString())).toEqual({ files: files.map((_, index) => `${base}-${index}.jsonl`) });
    const indexes = (await Promise.all(files.map(async (key) => lines(await store.read(key))))).flat().map((line) => line.properties.index as number);
    expect(indexes.sort((a, b) => a - b)).toEqual(Array.from({ length: 3000 }, (_, index) => index));
    expect(run.bytes_exported).toBeGreaterThan(2_500_000);
  });

  it('a run taken over from a worker that died writes the same keys again and deletes what only the dead attempt wrote', async () => {
    const created = await createExport(stack, big, { destination: s3Destination(store, { prefix: 'takeover', max_file_size_mb: 1 }) });
    await backfill(stack, big, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    const [run] = await runsOf(stack, big, created.id);
    const before = await store.keys('takeover/');
    // As if an attempt had begun a fourth file before its worker died (its heartbeat long stale).
    const stray = 'takeover/2026-01-05T00:00:00+00:00-2026-01-06T00:00:00+00:00-9.jsonl';
    await store.client.send(new PutObjectCommand({ Bucket: store.bucket, Key: stray, Body: 'partial' }));
    await sql(inject('databaseUrl'), "update batch_exports.batch_export_runs set status = 'Running', heartbeat_at = now() - interval '1 hour', cursor = jsonb_build_object('files', cursor->'files' || to_jsonb($2::text)) where id = $1", [run.id, stray]);
    await drainExports(stack, big);
    const [after] = await runsOf(stack, big, created.id);
    expect(after).toMatchObject({ status: 'Completed', records_completed: 3000, attempts: 2 });
    expect(await store.keys('takeover/')).toEqual(before);
  });
});

describe('S3 destination failures', () => {
  it('a missing bucket fails the run at once with the store\'s words; refused credentials too', async () => {
    const missing = await createExport(stack, owner, { destination: s3Destination(store, { bucket_name: 'no-such-bucket' }) });
    await backfill(stack, owner, missing.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    const [run] = await runsOf(stack, owner, missing.id);
    expect(run).toMatchObject({ status: 'Failed', attempts: 1 });
    expect(run.latest_error).toMatch(/NoSuchBucket/);
    const refused = await createExport(stack, owner, { destination: s3Destination(store, { aws_access_key_id: 'WRONG' }) });
    await backfill(stack, owner, refused.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    const [second] = await runsOf(stack, owner, refused.id);
    expect(second).toMatchObject({ status: 'Failed', attempts: 1 });
    expect(second.latest_error).toMatch(/InvalidAccessKeyId/);
  });

  it('an unreachable store is tried again with backoff, then the run fails with its words', async () => {
    const gone = await createExport(stack, owner, { destination: s3Destination(store, { endpoint_url: 'http://127.0.0.1:9' }) });
    const response = await api(stack.url, 'POST', exportsPath(owner, `${gone.id}/backfills`), { key: owner.personal_api_key, body: { start_at: '2026-01-05T00:00:00Z', end_at: '2026-01-06T00:00:00Z' } });
    expect(response.status).toBe(201);
    await drainExports(stack, owner);
    const [first] = await runsOf(stack, owner, gone.id);
    expect(first).toMatchObject({ status: 'FailedRetryable', attempts: 1 });
    expect(first.latest_error).toMatch(/ECONNREFUSED/);
    // Delays of 1 s, then 2 s (BATCH_EXPORT_RETRY_DELAY_SECONDS=1), and the third try is the last.
    const deadline = Date.now() + 30_000;
    let run = first;
    while (run.status !== 'Failed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await drainExports(stack, owner);
      [run] = await runsOf(stack, owner, gone.id);
    }
    expect(run).toMatchObject({ status: 'Failed', attempts: 3 });
    expect(run.latest_error).toMatch(/ECONNREFUSED/);
  });
});
