import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createExport, backfill, ingestedAsTheyHappened, runsOf, s3Destination, startS3, type S3Store } from './kit/batch-exports.js';
import { ingest, SEED_EVENTS } from './kit/endpoints.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
let store: S3Store;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl'), env: { BATCH_EXPORT_SETTLE_SECONDS: '0', BATCH_EXPORT_RETRY_DELAY_SECONDS: '1' } });
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
