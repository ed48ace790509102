import { connect, type Socket } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listenIngest } from '../router/ingest-listener.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { api, gql } from './kit/http.js';
import { anEvent, applyProfiles, daysAgo, eventCount, postBatch } from './kit/ingest.js';
import { compactJson, storedEvents, TEST_EVENTS_STORE } from './kit/events-store.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

const MAX_INGEST_BODY = 4 * 1024 * 1024;

let stack: Stack;
let tenant: Tenant;
const databaseUrl = () => inject('databaseUrl');

beforeAll(async () => {
  stack = await startStack({ databaseUrl: databaseUrl(), maxIngestBodyBytes: MAX_INGEST_BODY, ingestListener: true });
  tenant = await seedTenant(databaseUrl(), 'ingest');
});
afterAll(() => stack?.stop());

/** A fresh tenant, so that counts start at zero. */
const freshTenant = () => seedTenant(databaseUrl(), 'ingest');
const envelope = (token: string, batch: unknown[], extra: Record<string, unknown> = {}) => ({ api_key: token, historical_migration: true, batch, ...extra });
const stored = (owner: Tenant, query = '') =>
  api(stack.url, 'GET', `/api/environments/${owner.environment_id}/events/${query}`, { key: owner.personal_api_key }).then((response) => response.body.results);

describe('POST /batch/', () => {
  it('answers {"status": "Ok"} once the events are stored, and they read back as sent', async () => {
    const owner = await freshTenant();
    const uuid = crypto.randomUUID();
    const response = await postBatch(stack, envelope(owner.project_api_key, [
      { uuid, event: 'signed_up', timestamp: '2026-01-02T03:04:05.123456+01:00', properties: { distinct_id: 'in-properties', plan: 'pro', $set: { a: 1 } }, $set: { b: 2 } },
    ]));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'Ok' });
    expect(await stored(owner)).toEqual([
      {
        id: uuid,
        distinct_id: 'in-properties',
        event: 'signed_up',
        timestamp: '2026-01-02T02:04:05.123456Z',
        properties: { distinct_id: 'in-properties', plan: 'pro', $set: { a: 1, b: 2 } },
      },
    ]);
  });

  it('keeps big integers and unicode in properties exactly as sent', async () => {
    const owner = await freshTenant();
    const body = `{"api_key": "${owner.project_api_key}", "batch": [{"event": "x", "distinct_id": "u", "timestamp": "${daysAgo()}", "properties": {"big": 12345678901234567890, "text": "日本語 🎉 \\"quoted\\""}}]}`;
    expect((await postBatch(stack, Buffer.from(body))).status).toBe(200);
    const [{ properties }] = await storedEvents(databaseUrl(), owner.environment_id);
    expect(compactJson(properties)).toBe('{"big":12345678901234567890,"text":"日本語 🎉 \\"quoted\\""}');
  });

  it('keeps every digit of properties that top-level $set and $set_once join', async () => {
    const owner = await freshTenant();
    const event = `{"event": "x", "distinct_id": "u", "timestamp": "${daysAgo()}", "$set": {"b": 1.50}, "$set_once": {}, "properties": {"n": 12345678901234567890, "$set": {"a": 2.0}}}`;
    expect((await postBatch(stack, Buffer.from(`{"api_key": "${owner.project_api_key}", "batch": [${event}]}`))).status).toBe(200);
    const [{ properties }] = await storedEvents(databaseUrl(), owner.environment_id);
    expect(compactJson(properties)).toBe('{"n":12345678901234567890,"$set":{"a":2.0,"b":1.50},"$set_once":{}}');
  });

  describe('the project API key', () => {
    it('answers 401 without a key, and with a key nobody has, storing nothing', async () => {
      expect(await postBatch(stack, { batch: [anEvent()] })).toMatchObject({
        status: 401,
        body: { type: 'authentication_error', code: 'missing_api_key', detail: expect.stringMatching(/API key not provided/), attr: 'api_key' },
      });
      expect(await postBatch(stack, envelope('phc_nobodyHasThisKey00000000000000000000000000', [anEvent()]))).toMatchObject({
        status: 401,
        body: { code: 'invalid_api_key', attr: 'api_key' },
      });
    });

    it('refuses a personal API key and events carrying different keys', async () => {
      expect((await postBatch(stack, envelope(tenant.personal_api_key, [anEvent()]))).body).toMatchObject({ code: 'invalid_api_key', detail: expect.stringContaining('personal_api_key') });
      const mixed = await postBatch(stack, [anEvent({ api_key: tenant.project_api_key }), anEvent({ api_key: 'phc_other' })]);
      expect(mixed).toMatchObject({ status: 401, body: { code: 'inconsistent_api_key' } });
    });

    it('takes the key as `token`, or on the events (a bare list, or one event alone)', async () => {
      const owner = await freshTenant();
      expect((await postBatch(stack, { token: owner.project_api_key, batch: [anEvent()] })).status).toBe(200);
      expect((await postBatch(stack, [anEvent({ api_key: owner.project_api_key }), anEvent({ properties: { token: owner.project_api_key } })])).status).toBe(200);
      expect((await postBatch(stack, anEvent({ token: owner.project_api_key }))).status).toBe(200);
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(4);
    });

    it('stops working at once when the token is reset', async () => {
      const owner = await freshTenant();
      expect((await postBatch(stack, envelope(owner.project_api_key, [anEvent()]))).status).toBe(200);
      const reset = await api(stack.url, 'PATCH', `/api/environments/${owner.environment_id}/reset_token/`, { key: owner.personal_api_key });
      expect(reset.status).toBe(200);
      expect((await postBatch(stack, envelope(owner.project_api_key, [anEvent()]))).status).toBe(401);
      expect((await postBatch(stack, envelope(reset.body.api_token, [anEvent()]))).status).toBe(200);
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(2);
    });

    it("never writes into another project: a token's events land in its own environment only", async () => {
      const [a, b] = await Promise.all([freshTenant(), freshTenant()]);
      await postBatch(stack, envelope(a.project_api_key, [anEvent({ properties: { environment_id: b.environment_id, project_id: b.project_id } })]));
      expect(await eventCount(databaseUrl(), a.environment_id)).toBe(1);
      expect(await eventCount(databaseUrl(), b.environment_id)).toBe(0);
    });
  });

  describe('a batch is all or nothing', () => {
    it.each([
      ['a missing event name', { event: undefined }, 'batch__1__event', 'required'],
      ['a missing distinct_id', { distinct_id: undefined, properties: {} }, 'batch__1__distinct_id', 'required'],
      ['a distinct_id over 200 characters', { distinct_id: 'x'.repeat(201) }, 'batch__1__distinct_id', 'max_length'],
      ['a missing timestamp', { timestamp: undefined }, 'batch__1__timestamp', 'required'],
      ['an unparseable timestamp', { timestamp: '31/12/2025' }, 'batch__1__timestamp', 'invalid_input'],
      ['a timestamp under 48 hours old', { timestamp: daysAgo(1) }, 'batch__1__timestamp', 'too_recent'],
    ])('answers 400 for %s, naming the event and field, and stores nothing of the batch', async (_case, fields, attr, code) => {
      const owner = await freshTenant();
      const response = await postBatch(stack, envelope(owner.project_api_key, [anEvent(), anEvent(fields), anEvent()]));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ type: 'validation_error', code, detail: expect.any(String), attr });
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(0);
    });

    it('answers 400 for an empty batch and for a body that is no JSON', async () => {
      expect(await postBatch(stack, envelope(tenant.project_api_key, []))).toMatchObject({ status: 400, body: { attr: 'batch', code: 'empty' } });
      expect(await postBatch(stack, Buffer.from('{"batch": ['))).toMatchObject({ status: 400, body: { type: 'invalid_request', code: 'parse_error' } });
      expect(await postBatch(stack, Buffer.from(''))).toMatchObject({ status: 400, body: { code: 'no_data' } });
    });

    it('takes recent events without historical_migration (the normal path has no 48-hour rule)', async () => {
      const owner = await freshTenant();
      const response = await postBatch(stack, { api_key: owner.project_api_key, batch: [anEvent({ timestamp: new Date().toISOString() })] });
      expect(response.status).toBe(200);
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(1);
    });

    it('refuses a sixth group type with a 400 and stores nothing of that batch', async () => {
      const owner = await freshTenant();
      const group = (type: string) => anEvent({ event: '$groupidentify', properties: { $group_type: type, $group_key: 'k' } });
      expect((await postBatch(stack, envelope(owner.project_api_key, ['a', 'b', 'c', 'd', 'e'].map(group)))).status).toBe(200);
      const sixth = await postBatch(stack, envelope(owner.project_api_key, [anEvent(), group('f')]));
      expect(sixth).toMatchObject({ status: 400, body: { attr: 'batch__1__properties__$group_type', code: 'group_type_limit' } });
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(5);
      const project = await api(stack.url, 'GET', `/api/organizations/${owner.organization_id}/projects/${owner.project_id}/`, { key: owner.personal_api_key });
      expect(project.body.group_types.map((type: { group_type: string }) => type.group_type)).toEqual(['a', 'b', 'c', 'd', 'e']);
    });

    // ClickHouse's String stores what PostgreSQL's jsonb refuses: the refusal is PostgreSQL's alone.
    it.skipIf(TEST_EVENTS_STORE === 'clickhouse')('answers 400, never 500, for values JavaScript reads but PostgreSQL cannot store', async () => {
      const owner = await freshTenant();
      const huge = Buffer.from(`{"api_key": "${owner.project_api_key}", "batch": [{"event": "x", "distinct_id": "u", "timestamp": "${daysAgo()}", "properties": {"n": 1e999999}}]}`);
      expect(await postBatch(stack, huge)).toMatchObject({ status: 400, body: { type: 'validation_error', attr: 'batch' } });
      const withUuid = Buffer.from(huge.toString().replace('"event": "x"', `"event": "x", "uuid": "${crypto.randomUUID()}"`));
      const refused = await postBatch(stack, withUuid);
      // The database's own message quotes the statement: the answer says what was wrong in its own words.
      expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_input', detail: expect.stringContaining('out of range') } });
      expect(refused.body.detail).not.toMatch(/select|jsonb|\$1/i);
      // Refused at its first row while megabytes of the batch are still on their way to PostgreSQL.
      const filler = Array.from({ length: 2000 }, () => JSON.stringify(anEvent({ properties: { blob: 'x'.repeat(1500) } })));
      const early = Buffer.from(huge.toString().replace(/\]\}$/, `, ${filler.join(', ')}]}`));
      expect(await postBatch(stack, early)).toMatchObject({ status: 400, body: { code: 'invalid_input', attr: 'batch' } });
      const nested = `${'['.repeat(70)}"a\\u0000b"${']'.repeat(70)}`;
      const deepNul = Buffer.from(`{"api_key": "${owner.project_api_key}", "batch": [{"event": "x", "distinct_id": "u", "timestamp": "${daysAgo()}", "properties": {"deep": ${nested}}}]}`);
      const deepNulAnswer = await postBatch(stack, deepNul);
      expect(deepNulAnswer.text).toBe('{"status":"Ok"}');
      expect(JSON.stringify((await stored(owner))[0].properties)).toContain('a\ufffdb');
      const deepAndNul = Buffer.from(`{"api_key": "${owner.project_api_key}", "batch": [{"event": "x", "distinct_id": "u", "timestamp": "${daysAgo()}", "properties": {"a": "\\u0000", "b": ${'['.repeat(100_000)}1${']'.repeat(100_000)}}}]}`);
      expect(await postBatch(stack, deepAndNul)).toMatchObject({ status: 400, body: { code: 'too_deep' } });
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(1);
    });

    it('answers 413 for an event whose properties pass a megabyte, naming it, and stores nothing of the batch', async () => {
      const owner = await freshTenant();
      const response = await postBatch(stack, envelope(owner.project_api_key, [anEvent(), anEvent({ properties: { blob: 'x'.repeat(1_100_000) } })]));
      expect(response).toMatchObject({ status: 413, body: { code: 'event_too_large', attr: 'batch__1__properties' } });
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(0);
    });

    it('refuses group type names over 400 characters in $groups', async () => {
      expect(await postBatch(stack, envelope(tenant.project_api_key, [anEvent({ properties: { $groups: { ['t'.repeat(401)]: 'k' } } })]))).toMatchObject({
        status: 400,
        body: { attr: 'batch__0__properties__$groups', code: 'max_length' },
      });
    });

    it.skipIf(TEST_EVENTS_STORE === 'clickhouse')('answers 400 for properties nested beyond what can be stored, never 500', async () => {
      const deep = `{"a": ${'['.repeat(100_000)}1${']'.repeat(100_000)}}`;
      const body = Buffer.from(`{"api_key": "${tenant.project_api_key}", "batch": [{"event": "x", "distinct_id": "u", "timestamp": "${daysAgo()}", "uuid": "${crypto.randomUUID()}", "properties": ${deep}}]}`);
      expect(await postBatch(stack, body)).toMatchObject({ status: 400, body: { code: 'too_deep' } });
      const noUuid = Buffer.from(`{"api_key": "${tenant.project_api_key}", "batch": [{"event": "x", "distinct_id": "u", "timestamp": "${daysAgo()}", "properties": ${deep}}]}`);
      expect(await postBatch(stack, noUuid)).toMatchObject({ status: 400, body: { attr: 'batch__0__properties', code: 'too_deep' } });
    });
  });

  describe('idempotence', () => {
    it('stores a retried batch once, by uuid', async () => {
      const owner = await freshTenant();
      const batch = envelope(owner.project_api_key, [anEvent(), anEvent(), anEvent()]);
      expect((await postBatch(stack, batch)).status).toBe(200);
      expect((await postBatch(stack, batch)).status).toBe(200);
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(3);
    });

    it('derives the same uuid for an event sent without one, so a retry stores nothing twice', async () => {
      const owner = await freshTenant();
      const batch = envelope(owner.project_api_key, [anEvent({ uuid: undefined }), anEvent({ uuid: undefined, event: 'other' })]);
      await postBatch(stack, batch);
      await postBatch(stack, batch);
      const events = await stored(owner);
      expect(events).toHaveLength(2);
      expect(new Set(events.map((event: { id: string }) => event.id)).size).toBe(2);
    });

    it('stores one event for two of a batch with one uuid, and says so over GraphQL', async () => {
      const owner = await freshTenant();
      const uuid = crypto.randomUUID();
      const mutation = `mutation ($key: String, $batch: [JSON]!) { ingest_batch(api_key: $key, historical_migration: true, batch: $batch) { status received stored duplicates dropped } }`;
      const first = await gql(stack.graphqlUrl, mutation, { key: owner.project_api_key, batch: [anEvent({ uuid }), anEvent({ uuid })] });
      expect(first.data.ingest_batch).toEqual({ status: 'Ok', received: 2, stored: 1, duplicates: 1, dropped: 0 });
      const retry = await gql(stack.graphqlUrl, mutation, { key: owner.project_api_key, batch: [anEvent({ uuid })] });
      expect(retry.data.ingest_batch).toMatchObject({ stored: 0, duplicates: 1 });
    });
  });

  describe('request encodings', () => {
    const body = (owner: Tenant) => Buffer.from(JSON.stringify(envelope(owner.project_api_key, [anEvent()])));

    it('reads gzip by Content-Encoding, by ?compression=gzip-js and by its magic bytes, and deflate', async () => {
      const owner = await freshTenant();
      expect((await postBatch(stack, gzipSync(body(owner)), { 'content-encoding': 'gzip' })).status).toBe(200);
      expect((await postBatch(stack, gzipSync(body(owner)), {}, '?compression=gzip-js')).status).toBe(200);
      expect((await postBatch(stack, gzipSync(body(owner)), { 'content-type': 'text/plain' })).status).toBe(200);
      expect((await postBatch(stack, deflateSync(body(owner)), { 'content-encoding': 'deflate' })).status).toBe(200);
      expect((await postBatch(stack, gzipSync(body(owner)), { 'content-encoding': 'identity, gzip' })).status).toBe(200);
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(5);
    });

    it('reads form data whose `data` holds the JSON, plain or base64 (even with its + left unencoded)', async () => {
      const owner = await freshTenant();
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      expect((await postBatch(stack, Buffer.from(new URLSearchParams({ data: body(owner).toString() }).toString()), form)).status).toBe(200);
      expect((await postBatch(stack, Buffer.from(new URLSearchParams({ data: body(owner).toString('base64') }).toString()), form)).status).toBe(200);
      let withPlus = body(owner).toString('base64');
      for (let pad = 0; !withPlus.includes('+'); pad++) withPlus = Buffer.from(JSON.stringify(envelope(owner.project_api_key, [anEvent({ properties: { pad: '~'.repeat(pad) } })]))).toString('base64');
      expect((await postBatch(stack, Buffer.from(`data=${withPlus}`), form)).status).toBe(200);
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(3);
    });

    it("reads what curl -d sends: JSON or gzip under curl's default form content type", async () => {
      const owner = await freshTenant();
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      expect((await postBatch(stack, body(owner), form)).status).toBe(200);
      expect((await postBatch(stack, Buffer.from(`\n  ${body(owner).toString()}`), form)).status).toBe(200);
      expect((await postBatch(stack, gzipSync(body(owner)), form)).status).toBe(200);
      expect((await postBatch(stack, gzipSync(body(owner)), { ...form, 'content-encoding': 'gzip' })).status).toBe(200);
      expect((await postBatch(stack, gzipSync(new URLSearchParams({ data: body(owner).toString() }).toString()), { ...form, 'content-encoding': 'gzip' })).status).toBe(200);
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(5);
      expect(await postBatch(stack, Buffer.from('nothing=here'), form)).toMatchObject({ status: 400, body: { code: 'no_data' } });
    });

    it('answers 400 for control characters outside strings, before they cross the graph six times their size', async () => {
      const controls = Buffer.alloc(3 * 1024 * 1024, 0x01);
      expect(await postBatch(stack, controls)).toMatchObject({ status: 400, body: { code: 'parse_error' } });
      expect(await postBatch(stack, gzipSync(controls), { 'content-encoding': 'gzip' })).toMatchObject({ status: 400, body: { code: 'parse_error' } });
      const raw = Buffer.from(JSON.stringify(envelope(tenant.project_api_key, [anEvent({ properties: { tab: 'TAB' } })])).replace('TAB', '\x02'));
      expect(await postBatch(stack, raw)).toMatchObject({ status: 400, body: { code: 'parse_error' } });
    });

    it('answers 400 for a broken gzip body and an encoding it does not know', async () => {
      expect(await postBatch(stack, Buffer.from('not gzip'), { 'content-encoding': 'gzip' })).toMatchObject({ status: 400, body: { code: 'parse_error' } });
      expect(await postBatch(stack, body(tenant), { 'content-encoding': 'br' })).toMatchObject({ status: 400, body: { code: 'unsupported_encoding' } });
    });

    it('answers 413 for a body over the limit and for a small gzip that would inflate past it, storing nothing', async () => {
      const owner = await freshTenant();
      const large = Buffer.from(JSON.stringify(envelope(owner.project_api_key, [anEvent({ properties: { pad: 'x'.repeat(MAX_INGEST_BODY) } })])));
      expect(await postBatch(stack, large)).toMatchObject({ status: 413, body: { code: 'request_too_large' } });
      const bomb = gzipSync(large);
      expect(bomb.length).toBeLessThan(MAX_INGEST_BODY / 50);
      expect(await postBatch(stack, bomb, { 'content-encoding': 'gzip' })).toMatchObject({ status: 413, body: { code: 'request_too_large' } });
      expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(0);
    });

    it('replaces NUL characters and unpaired surrogates, which PostgreSQL cannot store, with U+FFFD', async () => {
      const owner = await freshTenant();
      const text = `{"api_key": "${owner.project_api_key}", "batch": [{"event": "x", "distinct_id": "u", "timestamp": "${daysAgo()}", "properties": {"nul": "a\\u0000b", "lone": "\\ud800"}}]}`;
      expect((await postBatch(stack, Buffer.from(text))).status).toBe(200);
      expect((await stored(owner))[0].properties).toEqual({ nul: 'a\ufffdb', lone: '\ufffd' });
    });
  });

  describe('times', () => {
    it("shifts events by the client's clock skew when sent_at is given, unless $ignore_sent_at", async () => {
      const owner = await freshTenant();
      const now = Date.now();
      const sentAt = new Date(now + 3_600_000).toISOString();
      const timestamp = new Date(now + 3_600_000 - 10 * 86_400_000).toISOString();
      await postBatch(stack, { api_key: owner.project_api_key, sent_at: sentAt, batch: [anEvent({ timestamp, event: 'skewed' }), anEvent({ timestamp, event: 'kept', properties: { $ignore_sent_at: true } })] });
      const events = await stored(owner);
      const at = (name: string) => Date.parse(events.find((event: { event: string }) => event.event === name).timestamp);
      expect(at('kept')).toBe(Date.parse(timestamp));
      expect(Math.abs(at('skewed') - (Date.parse(timestamp) - 3_600_000))).toBeLessThan(1000);
    });

    it('keeps the own time of an event whose sent_at is from another era', async () => {
      const owner = await freshTenant();
      const timestamp = daysAgo(400);
      await postBatch(stack, { api_key: owner.project_api_key, sent_at: '9999-12-31T00:00:00Z', batch: [anEvent({ timestamp })] });
      expect(Date.parse((await stored(owner))[0].timestamp)).toBe(Date.parse(timestamp));
    });

    it('takes an event dated more than 23 hours ahead as sent now (normal ingestion)', async () => {
      const owner = await freshTenant();
      await postBatch(stack, { api_key: owner.project_api_key, batch: [anEvent({ timestamp: new Date(Date.now() + 3 * 86_400_000).toISOString() })] });
      expect(Math.abs(Date.parse((await stored(owner))[0].timestamp) - Date.now())).toBeLessThan(60_000);
    });
  });

  describe('ingestion restrictions', () => {
    it("drops what the environment's restrictions drop and keeps skipped events away from persons", async () => {
      const owner = await freshTenant();
      const restrict = `mutation ($p: Int!, $type: String!, $ids: [String!]) { set_environment_event_ingestion_restriction(project_id: $p, id: $p, restriction_type: $type, distinct_ids: $ids) { restriction_type } }`;
      for (const [type, ids] of [['drop_event_from_ingestion', ['bot']], ['skip_person_processing', ['load-test']]] as const) {
        const result = await gql(stack.graphqlUrl, restrict, { p: owner.environment_id, type, ids }, owner.personal_api_key);
        expect(result.errors).toBeUndefined();
      }
      const response = await gql(
        stack.graphqlUrl,
        'mutation ($key: String, $batch: [JSON]!) { ingest_batch(api_key: $key, batch: $batch) { stored dropped } }',
        { key: owner.project_api_key, batch: [anEvent({ distinct_id: 'bot' }), anEvent({ distinct_id: 'load-test' }), anEvent({ distinct_id: 'person' })] },
      );
      expect(response.data.ingest_batch).toEqual({ stored: 2, dropped: 1 });
      await applyProfiles(stack);
      const persons = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/persons/`, { key: owner.personal_api_key });
      expect(persons.body.results.map((person: { distinct_ids: string[] }) => person.distinct_ids)).toEqual([['person']]);
    });
  });

  it("marks the environment's ingested_event after its first batch", async () => {
    const owner = await freshTenant();
    const environment = () => api(stack.url, 'GET', `/api/environments/${owner.environment_id}/`, { key: owner.personal_api_key }).then((response) => response.body.ingested_event);
    expect(await environment()).toBe(false);
    await postBatch(stack, envelope(owner.project_api_key, [anEvent()]));
    expect(await environment()).toBe(true);
  });

  it('takes batches while other clients stall in the middle of their bodies: reading holds no turn', async () => {
    const stalled = await Promise.all(Array.from({ length: 12 }, () => stallMidBody(stack.ingestUrl)));
    try {
      const owner = await freshTenant();
      const answer = await postBatch(stack, envelope(owner.project_api_key, [anEvent()]));
      expect(answer.status).toBe(200);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
  });

  it('answers 405 to other methods and 204 with CORS headers to a preflight', async () => {
    const get = await api(stack.ingestUrl, 'GET', '/batch/');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    const preflight = await fetch(`${stack.ingestUrl}/batch`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('fails naming INGEST_PORT when its port is taken', async () => {
    const port = Number(new URL(stack.url).port);
    const failure = await listenIngest({ host: '127.0.0.1', port, ingest: async () => new Response(), health: async () => ({ serving: true, parts: {} }), maxIngestBodyBytes: 1, log: createLogger('silent') }).catch((error: Error) => error.message);
    expect(failure).toBe(`invalid setting INGEST_PORT: 127.0.0.1:${port} is already in use`);
  });

  it('serves /batch/ on the API listener too, and the ingest listener serves nothing else', async () => {
    expect(stack.ingestUrl).not.toBe(stack.url);
    expect((await api(stack.url, 'POST', '/batch', { body: envelope(tenant.project_api_key, [anEvent()]) })).status).toBe(200);
    expect((await api(stack.ingestUrl, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await api(stack.ingestUrl, 'GET', '/api/environments/1/events/')).status).toBe(404);
    expect((await api(stack.ingestUrl, 'POST', '/graphql', { body: { query: '{ __typename }' } })).status).toBe(404);
  });
});

/** A connection that announces a large /batch/ body, sends its first byte and then nothing. */
function stallMidBody(baseUrl: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write('POST /batch/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
      setTimeout(() => resolve(socket), 50);
    });
  });
}
