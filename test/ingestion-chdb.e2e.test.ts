import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ClickHouse } from '../subgraphs/shared/clickhouse/clickhouse.js';
import { exportsPath, s3Destination, startS3 } from './kit/batch-exports.js';
import { postgresEventRows } from './kit/events-store.js';
import { api, gql } from './kit/http.js';
import { anEvent } from './kit/ingest.js';
import { BUILD_DIR, freePort, runCli, startPlatform, type Platform } from './kit/process.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

/**
 * The platform as `npm start` runs it with its events in ClickHouse's engine in its own process
 * (`CLICKHOUSE_URL=chdb:<dir>`, one worker), judged from outside: what it captures reads back
 * over REST and GraphQL as on PostgreSQL, a batch export exports it, PostgreSQL holds no event,
 * and a clean restart on the same directory keeps them.
 */
describe('the platform with its events on chDB', () => {
  const env = {
    DATABASE_URL: inject('databaseUrl'),
    SECRET_KEY: TEST_SECRET_KEY,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-chdb-platform-')),
    CLICKHOUSE_URL: `chdb:${mkdtempSync(join(tmpdir(), 'analytics-chdb-events-'))}`,
    WORKERS: '1',
    LOG_LEVEL: 'warn',
  };
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform({ ...env, PORT: String(await freePort()) });
  });
  afterAll(() => platform?.child.kill('SIGKILL'));

  const envelope = (owner: Tenant, batch: unknown[]) => ({ api_key: owner.project_api_key, historical_migration: true, batch });
  const rest = (owner: Tenant, path: string) => api(platform.url, 'GET', `/api/environments/${owner.environment_id}/${path}`, { key: owner.personal_api_key });
  const events = async (owner: Tenant, query = ''): Promise<{ id: string; event: string; distinct_id: string; timestamp: string; properties: Record<string, unknown> }[]> =>
    (await rest(owner, `events/?limit=1000${query}`)).body.results;
  const count = async (owner: Tenant, filters = '') =>
    (await gql(`${platform.url}/graphql`, `query ($p: Int!) { event_count(project_id: $p${filters}) }`, { p: owner.environment_id }, owner.personal_api_key)).data.event_count as number;
  /** POST `/batch/` with bytes as they are (gzip, a form), as an SDK sends them. */
  const capture = async (body: Buffer, headers: Record<string, string>, path = '/batch/') => {
    const response = await fetch(`${platform.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body) });
    return response.status;
  };

  it('refuses WORKERS=2 with chdb: in one line naming WORKERS and CLICKHOUSE_URL (exit 1, no stack)', async () => {
    const { code, stdout, stderr } = await runCli(`${BUILD_DIR}/router/process/main.js`, [], { ...env, CLICKHOUSE_URL: `chdb:${mkdtempSync(join(tmpdir(), 'analytics-chdb-refused-'))}`, WORKERS: '2', PORT: '0' });
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(/^invalid setting WORKERS: [^\n]*CLICKHOUSE_URL=chdb:[^\n]*\n$/);
  }, 120_000);

  it('answers /healthz, and names ClickHouse up in /healthz/detail', async () => {
    expect(await api(platform.url, 'GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await api(platform.url, 'GET', '/healthz/detail')).toMatchObject({ status: 200, body: { status: 'ok', parts: { database: 'up', clickhouse: 'up' } } });
  });

  it('stores what every capture encoding carries, and none of it in PostgreSQL', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'chdb');
    const body = (name: string) => Buffer.from(JSON.stringify(envelope(owner, [anEvent({ event: name })])));
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(await api(platform.url, 'POST', '/batch/', { body: envelope(owner, [anEvent({ event: 'json' })]) })).toMatchObject({ status: 200, body: { status: 'Ok' } });
    expect(await capture(body('no-slash'), {}, '/batch')).toBe(200);
    expect(await capture(gzipSync(body('gzip')), { 'content-encoding': 'gzip' })).toBe(200);
    expect(await capture(gzipSync(body('gzip-js')), {}, '/batch/?compression=gzip-js')).toBe(200);
    expect(await capture(deflateSync(body('deflate')), { 'content-encoding': 'deflate' })).toBe(200);
    expect(await capture(Buffer.from(new URLSearchParams({ data: body('form-base64').toString('base64') }).toString()), form)).toBe(200);
    expect(await capture(body('curl-d'), form)).toBe(200);
    // A bare list and one event alone, the key on the events; a recent one on the normal path.
    expect((await api(platform.url, 'POST', '/batch/', { body: [anEvent({ event: 'list', api_key: owner.project_api_key })] })).status).toBe(200);
    expect((await api(platform.url, 'POST', '/batch/', { body: anEvent({ event: 'alone', token: owner.project_api_key }) })).status).toBe(200);
    expect((await api(platform.url, 'POST', '/batch/', { body: { api_key: owner.project_api_key, batch: [anEvent({ event: 'live', timestamp: new Date().toISOString() })] } })).status).toBe(200);

    expect((await events(owner)).map((event) => event.event).sort()).toEqual(['alone', 'curl-d', 'deflate', 'form-base64', 'gzip', 'gzip-js', 'json', 'list', 'live', 'no-slash']);
    expect(await count(owner)).toBe(10);
    expect(await postgresEventRows(inject('databaseUrl'), owner.environment_id)).toEqual({ events: 0, ids: 0 });
  });

  it('stores nothing of a batch with a bad event, and answers 400 naming it', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'chdb');
    const response = await api(platform.url, 'POST', '/batch/', { body: envelope(owner, [anEvent(), anEvent({ timestamp: undefined })]) });
    expect(response).toMatchObject({ status: 400, body: { type: 'validation_error', code: 'required', attr: 'batch__1__timestamp' } });
    expect(await count(owner)).toBe(0);
  });

  it('stores a retried batch once, over /batch/ and GraphQL', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'chdb');
    const batch = envelope(owner, [anEvent(), anEvent({ uuid: undefined, event: 'derived uuid' }), anEvent()]);
    for (let attempt = 0; attempt < 2; attempt++) expect((await api(platform.url, 'POST', '/batch/', { body: batch })).status).toBe(200);
    expect(await events(owner)).toHaveLength(3);
    const mutation = 'mutation ($key: String, $batch: [JSON]!) { ingest_batch(api_key: $key, historical_migration: true, batch: $batch) { received stored duplicates } }';
    const retry = await gql(`${platform.url}/graphql`, mutation, { key: owner.project_api_key, batch: batch.batch });
    expect(retry.data.ingest_batch).toEqual({ received: 3, stored: 0, duplicates: 3 });
    expect(await count(owner)).toBe(3);
  });

  describe('reads', () => {
    let owner: Tenant;
    let intruder: Tenant;
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 10, 12, minute)).toISOString();
    /** Ten events a minute apart, alice's then bob's; every third a sign-up. */
    const sent = Array.from({ length: 10 }, (_, n) => anEvent({ event: n % 3 === 0 ? 'signed_up' : '$pageview', distinct_id: n < 5 ? 'alice' : 'bob', timestamp: at(n), properties: { n } }));
    const identify = anEvent({ event: '$identify', distinct_id: 'alice', timestamp: at(20), properties: { $set: { email: 'alice@example.com' } } });
    const group = anEvent({ event: '$groupidentify', distinct_id: 'alice', timestamp: at(21), properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } } });
    const numbers = (list: { properties: Record<string, unknown> }[]) => list.map((event) => event.properties.n);
    beforeAll(async () => {
      [owner, intruder] = await Promise.all([seedTenant(inject('databaseUrl'), 'chdb'), seedTenant(inject('databaseUrl'), 'chdb-intruder')]);
      expect((await api(platform.url, 'POST', '/batch/', { body: envelope(owner, [...sent, identify, group]) })).status).toBe(200);
    });

    it('lists over REST newest first, by name, distinct id and time, and pages with `next`', async () => {
      expect(numbers(await events(owner, '&event=signed_up'))).toEqual([9, 6, 3, 0]);
      expect(numbers(await events(owner, '&event=signed_up&distinct_id=bob'))).toEqual([9, 6]);
      expect(numbers(await events(owner, `&after=${at(4)}&before=${at(7)}`))).toEqual([6, 5, 4]);
      const seen: string[] = [];
      for (let path: string | null = 'events/?limit=3&distinct_id=alice'; path; ) {
        const page: { next: string | null; results: { id: string }[] } = (await rest(owner, path)).body;
        seen.push(...page.results.map((event) => event.id));
        path = page.next ? `events/${new URL(page.next, 'http://next').search}` : null;
      }
      expect(seen).toEqual([group, identify, ...sent.slice(0, 5).reverse()].map((event) => event.uuid));
    });

    it('lists and counts over GraphQL with the same filters', async () => {
      const query = 'query ($p: Int!, $e: String, $d: String) { events(project_id: $p, event: $e, distinct_id: $d, limit: 100) { results { id event distinct_id timestamp } } }';
      const list = await gql(`${platform.url}/graphql`, query, { p: owner.environment_id, e: '$pageview', d: 'alice' }, owner.personal_api_key);
      expect(list.data.events.results.map((event: { id: string }) => event.id)).toEqual([sent[4], sent[2], sent[1]].map((event) => event!.uuid));
      expect(list.data.events.results[0]).toMatchObject({ event: '$pageview', distinct_id: 'alice', timestamp: '2026-01-10T12:04:00.000000Z' });
      expect(await count(owner)).toBe(12);
      expect(await count(owner, ', event: "signed_up", distinct_id: "bob"')).toBe(2);
      expect(await count(owner, `, after: "${at(4)}", before: "${at(7)}"`)).toBe(3);
    });

    it('answers one event by id over REST and GraphQL, and another tenant\'s as not found', async () => {
      const uuid = sent[7]!.uuid as string;
      expect((await rest(owner, `events/${uuid}/`)).body).toEqual({ id: uuid, event: '$pageview', distinct_id: 'bob', timestamp: '2026-01-10T12:07:00.000000Z', properties: { n: 7 } });
      const one = await gql(`${platform.url}/graphql`, 'query ($p: Int!, $id: ID!) { event(project_id: $p, id: $id) { id properties } }', { p: owner.environment_id, id: uuid }, owner.personal_api_key);
      expect(one.data.event).toEqual({ id: uuid, properties: { n: 7 } });
      expect((await rest(intruder, `events/${uuid}/`)).status).toBe(404);
      expect(await events(intruder)).toEqual([]);
      expect((await rest(owner, `events/${crypto.randomUUID()}/`)).status).toBe(404);
    });

    it('applies persons and groups as on PostgreSQL', async () => {
      await expect.poll(async () => (await rest(owner, 'persons/?distinct_id=alice')).body.results[0]?.properties, { timeout: 30_000 }).toEqual({ email: 'alice@example.com' });
      await expect.poll(async () => (await rest(owner, 'groups/find/?group_type_index=0&group_key=acme')).body?.group_properties, { timeout: 30_000 }).toEqual({ name: 'Acme' });
    });

    it('exports the captured events in a backfill, each once, with PostHog\'s fields', async () => {
      const store = await startS3();
      try {
        const call = (method: string, rest: string, body?: unknown) => api(platform.url, method, exportsPath(owner, rest), { key: owner.personal_api_key, body });
        const created = await call('POST', '', { name: 'chdb', interval: 'day', destination: s3Destination(store, { prefix: 'chdb' }) });
        expect(created.status, created.text).toBe(201);
        expect((await call('POST', `${created.body.id}/backfills`, { start_at: '2026-01-10T00:00:00Z', end_at: '2026-01-11T00:00:00Z' })).status).toBe(201);
        await expect.poll(async () => (await call('GET', `${created.body.id}/runs`)).body.results.map((run: { status: string }) => run.status), { timeout: 60_000 }).toEqual(['Completed']);
        const keys = await store.keys('chdb/');
        const records = (await Promise.all(keys.map(async (key) => (await store.read(key)).toString().trim().split('\n')))).flat().map((line) => JSON.parse(line));
        const expected = [...sent, identify, group];
        expect(records.map((record) => record.uuid).sort()).toEqual(expected.map((event) => event.uuid as string).sort());
        for (const record of records) {
          const event = expected.find((candidate) => candidate.uuid === record.uuid)!;
          expect(record).toMatchObject({ event: event.event, distinct_id: event.distinct_id, properties: event.properties, elements_chain: '' });
          // A backfill's `_inserted_at` is the event's own time, as PostHog's backfill view exports it.
          expect([record.timestamp, record._inserted_at].map((time: string) => new Date(time).toISOString())).toEqual([event.timestamp, event.timestamp]);
        }
      } finally {
        await store.stop();
      }
    }, 120_000);

    it('keeps the events across a clean restart on the same directory', async () => {
      const before = await events(owner);
      platform.child.kill('SIGTERM');
      expect(await platform.exited).toBe(0);
      // The reads answer an event once however many rows it has: the rows themselves, read while
      // no platform holds the directory, are one per event of every tenant of this file (unless a
      // background merge has collapsed copies already).
      const physical = await physicalRows(env.CLICKHOUSE_URL);
      expect(physical.rows).toBe(physical.events);
      platform = await startPlatform({ ...env, PORT: String(await freePort()) });
      expect(await events(owner)).toEqual(before);
      expect(await count(owner)).toBe(12);
      expect(await postgresEventRows(inject('databaseUrl'), owner.environment_id)).toEqual({ events: 0, ids: 0 });
    }, 120_000);
  });
});

/** chDB's rows of `events` and how many events (environment and uuid) they are, read in this process. */
async function physicalRows(url: string): Promise<{ rows: number; events: number }> {
  const clickhouse = ClickHouse.open(url);
  try {
    const [row] = await clickhouse.query<{ rows: string; events: string }>(`SELECT count() AS rows, uniqExact(team_id, uuid) AS events FROM ${clickhouse.database}.events`);
    return { rows: Number(row!.rows), events: Number(row!.events) };
  } finally {
    await clickhouse.close();
  }
}
