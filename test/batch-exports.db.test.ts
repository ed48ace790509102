import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createExport, drainExports, exportsPath, runsOf, s3Destination, startS3, type S3Store } from './kit/batch-exports.js';
import { sql } from './kit/db.js';
import { api, gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
let store: S3Store;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  owner = await seedTenant(inject('databaseUrl'), 'exports-records');
  store = await startS3();
});
afterAll(async () => {
  await stack?.stop();
  await store?.stop();
});

const call = (method: string, rest: string, body?: unknown) => api(stack.url, method, exportsPath(owner, rest), { key: owner.personal_api_key, body });

describe('batch export records', () => {
  it('creates, reads, lists, updates and deletes an export, never showing its secrets', async () => {
    const created = await createExport(stack, owner, { name: 'nightly', interval: 'day', offset_hour: 3, timezone: 'Europe/Berlin', destination: s3Destination(store, { compression: 'gzip' }) });
    expect(created).toMatchObject({
      name: 'nightly',
      team_id: owner.environment_id,
      model: 'events',
      interval: 'day',
      paused: false,
      offset_day: null,
      offset_hour: 3,
      timezone: 'Europe/Berlin',
      last_paused_at: null,
      latest_runs: [],
      hogql_query: null,
      schema: null,
      destination: { type: 'S3', config: { bucket_name: store.bucket, region: 'us-east-1', prefix: 'events', endpoint_url: store.url, compression: 'gzip' } },
    });
    expect(JSON.stringify(created)).not.toContain('aws_access_key_id');
    const [stored] = await sql<{ destination_secrets: string; destination_config: object }>(inject('databaseUrl'), 'select destination_secrets, destination_config from batch_exports.batch_exports where id = $1', [created.id]);
    expect(stored!.destination_secrets).toMatch(/^v1:/);
    expect(JSON.stringify(stored)).not.toContain('S3RVER');

    const list = await call('GET', '');
    expect(list.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(list.body.results[0].id).toBe(created.id);
    expect((await call('GET', created.id)).body).toEqual(created);

    const patched = await call('PATCH', created.id, { name: 'renamed', destination: { config: { prefix: 'other/{table}' } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: 'renamed', destination: { type: 'S3', config: { prefix: 'other/{table}', compression: 'gzip', bucket_name: store.bucket } } });
    const [after] = await sql<{ destination_secrets: string }>(inject('databaseUrl'), 'select destination_secrets from batch_exports.batch_exports where id = $1', [created.id]);
    expect(after!.destination_secrets).toBe(stored!.destination_secrets);

    expect((await call('DELETE', created.id)).status).toBe(204);
    expect((await call('GET', created.id)).status).toBe(404);
  });

  it('never sends stored credentials to a new address: moving a destination needs its secrets again', async () => {
    const created = await createExport(stack, owner, { destination: { type: 'HTTP', config: { url: 'https://one.example.test/batch/', token: 'first-token' } } });
    const moved = await call('PATCH', created.id, { destination: { config: { url: 'https://two.example.test/batch/' } } });
    expect(moved.status, moved.text).toBe(400);
    expect(moved.body).toMatchObject({ type: 'validation_error', attr: 'destination' });
    expect(moved.body.detail).toContain('Changing url needs the secret fields sent again (token)');
    expect((await call('GET', created.id)).body.destination.config.url).toBe('https://one.example.test/batch/');
    const resent = await call('PATCH', created.id, { destination: { config: { url: 'https://two.example.test/batch/', token: 'second-token' } } });
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.destination.config).toEqual({ url: 'https://two.example.test/batch/' });
    // Other fields change without the secrets.
    expect((await call('PATCH', created.id, { destination: { config: { body_format: 'PostHogBatch' } } })).status).toBe(200);
  });

  it('keeps the offsets a PATCH leaves out, and drops them with the interval they belonged to', async () => {
    const created = await createExport(stack, owner, { interval: 'week', offset_day: 3, offset_hour: 7, destination: s3Destination(store) });
    expect((await call('PATCH', created.id, { interval: 'week', name: 'same interval' })).body).toMatchObject({ offset_day: 3, offset_hour: 7 });
    expect((await call('PATCH', created.id, { offset_hour: 9 })).body).toMatchObject({ offset_day: 3, offset_hour: 9 });
    expect((await call('PATCH', created.id, { interval: 'day' })).body).toMatchObject({ offset_day: null, offset_hour: 0 });
    expect((await call('PATCH', created.id, { timezone: 'europe/berlin' })).body.timezone).toBe('Europe/Berlin');
  });

  it('answers the same record over GraphQL', async () => {
    const created = await createExport(stack, owner, { name: 'graph', interval: 'week', offset_day: 2, offset_hour: 6, destination: s3Destination(store) });
    const { data, errors } = await gql(
      stack.graphqlUrl,
      'query ($project_id: Int!, $id: String!) { batch_export(project_id: $project_id, id: $id) { id name interval offset_day offset_hour destination { type config } latest_runs { id } } }',
      { project_id: owner.environment_id, id: created.id },
      owner.personal_api_key,
    );
    expect(errors).toBeUndefined();
    expect(data.batch_export).toEqual({ id: created.id, name: 'graph', interval: 'week', offset_day: 2, offset_hour: 6, destination: created.destination, latest_runs: [] });
  });
});

describe('pause and unpause', () => {
  it('answer PostHog\'s {paused}, are idempotent, keep last_paused_at after unpausing', async () => {
    const created = await createExport(stack, owner, { destination: s3Destination(store) });
    const paused = await call('POST', `${created.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({ paused: true });
    const first = (await call('GET', created.id)).body;
    expect(first.paused).toBe(true);
    expect(Date.parse(first.last_paused_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await call('POST', `${created.id}/pause`)).body).toEqual({ paused: true });
    expect((await call('GET', created.id)).body.last_paused_at).toBe(first.last_paused_at);
    expect((await call('POST', `${created.id}/unpause`)).body).toEqual({ paused: false });
    expect((await call('POST', `${created.id}/unpause`)).body).toEqual({ paused: false });
    const resumed = (await call('GET', created.id)).body;
    expect(resumed).toMatchObject({ paused: false, last_paused_at: first.last_paused_at });
  });

  it('runs every interval that ended before the pause, and none while paused', async () => {
    const created = await createExport(stack, owner, { interval: 'every 5 minutes', destination: s3Destination(store, { prefix: 'paused' }) });
    // As if the export had been made 17 minutes ago: three intervals have ended since.
    await sql(inject('databaseUrl'), "update batch_exports.batch_exports set scheduled_until = scheduled_until - interval '15 minutes' where id = $1", [created.id]);
    expect((await call('POST', `${created.id}/pause`)).body).toEqual({ paused: true });
    await drainExports(stack, owner);
    const runs = await runsOf(stack, owner, created.id);
    expect(runs).toHaveLength(3);
    expect(runs.every((run) => run.status === 'Completed')).toBe(true);
    await sql(inject('databaseUrl'), "update batch_exports.batch_exports set scheduled_until = scheduled_until - interval '15 minutes' where id = $1", [created.id]);
    await drainExports(stack, owner);
    expect(await runsOf(stack, owner, created.id)).toHaveLength(3);
  });

  it('with backfill, exports exactly the gap the schedule skipped while paused', async () => {
    const created = await createExport(stack, owner, { interval: 'every 5 minutes', destination: s3Destination(store, { prefix: 'gap' }) });
    expect((await call('POST', `${created.id}/pause`)).body).toEqual({ paused: true });
    await sql(inject('databaseUrl'), "update batch_exports.batch_exports set scheduled_until = scheduled_until - interval '20 minutes' where id = $1", [created.id]);
    const [{ scheduled_until: from }] = await sql<{ scheduled_until: Date }>(inject('databaseUrl'), 'select scheduled_until from batch_exports.batch_exports where id = $1', [created.id]);
    expect((await call('POST', `${created.id}/unpause`, { backfill: true })).body).toEqual({ paused: false });
    await drainExports(stack, owner);
    const runs = await runsOf(stack, owner, created.id);
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(new Date(runs[0].data_interval_start)).toEqual(from);
    for (let index = 1; index < runs.length; index++) expect(runs[index].data_interval_start).toBe(runs[index - 1].data_interval_end);
    expect(runs.every((run) => run.backfill !== null && run.status === 'Completed')).toBe(true);
    const backfills = await call('GET', `${created.id}/backfills`);
    expect(backfills.body.results[0]).toMatchObject({ status: 'Completed', progress: { total_runs: runs.length, finished_runs: runs.length, progress: 1 } });
  });
});

describe('the scheduler', () => {
  it('makes one run per interval that ended, tiling time without gaps or overlaps, whatever the passes', async () => {
    const fiveMinutes = 5 * 60_000;
    const boundary = () => Math.floor(Date.now() / fiveMinutes);
    const before = boundary();
    const created = await createExport(stack, owner, { interval: 'every 5 minutes', destination: s3Destination(store, { prefix: 'scheduled' }) });
    await sql(inject('databaseUrl'), "update batch_exports.batch_exports set scheduled_until = scheduled_until - interval '30 minutes' where id = $1", [created.id]);
    await Promise.all([drainExports(stack, owner), drainExports(stack, owner)]);
    await drainExports(stack, owner);
    const runs = await runsOf(stack, owner, created.id);
    // Six intervals ended in the half hour moved back, and one more for each 5-minute boundary the clock passed meanwhile.
    expect(runs.length).toBeGreaterThanOrEqual(6);
    expect(runs.length).toBeLessThanOrEqual(6 + boundary() - before);
    for (let index = 1; index < runs.length; index++) expect(runs[index].data_interval_start).toBe(runs[index - 1].data_interval_end);
    expect(runs.map((run) => run.status)).toEqual(Array(runs.length).fill('Completed'));
    expect(runs.every((run) => run.backfill === null)).toBe(true);
    const record = (await call('GET', created.id)).body;
    expect(record.latest_runs.map((run: { id: string }) => run.id).sort()).toEqual(runs.map((run) => run.id).sort());
  });
});
