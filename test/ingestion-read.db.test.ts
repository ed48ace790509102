import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, gql } from './kit/http.js';
import { anEvent, applyProfiles, postBatch } from './kit/ingest.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { TEST_EVENTS_STORE } from './kit/events-store.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
let intruder: Tenant;
const uuids: string[] = [];
let personUuid: string;
/** Keys of the owner's user: one with unrelated scopes, one per read scope. */
const keys: Record<string, string> = {};

const at = (minute: number) => new Date(Date.UTC(2026, 0, 10, 12, minute)).toISOString();
const rest = (path: string, key = owner.personal_api_key, environment = owner.environment_id) => api(stack.url, 'GET', `/api/environments/${environment}/${path}`, { key });

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  [owner, intruder] = await Promise.all([seedTenant(inject('databaseUrl'), 'reader'), seedTenant(inject('databaseUrl'), 'intruder')]);
  // Twelve events a minute apart, three of them at one instant (ties are ordered by uuid).
  const events = Array.from({ length: 12 }, (_, index) =>
    anEvent({ event: index % 3 === 0 ? 'signed_up' : '$pageview', distinct_id: index < 6 ? 'alice' : 'bob', timestamp: at(index < 3 ? 0 : index), properties: { n: index } }),
  );
  events.push(anEvent({ event: '$identify', distinct_id: 'alice', timestamp: at(20), properties: { $set: { email: 'alice@example.com' } } }));
  events.push(anEvent({ event: '$groupidentify', distinct_id: 'alice', timestamp: at(21), properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme Inc' } } }));
  uuids.push(...events.map((event) => event.uuid as string));
  expect((await postBatch(stack, { api_key: owner.project_api_key, historical_migration: true, batch: events })).status).toBe(200);
  await applyProfiles(stack);
  for (const scope of ['query:read', 'person:read', 'group:read']) keys[scope] = await createKey(stack.url, owner.personal_api_key, [scope]);
  keys.unrelated = await createKey(stack.url, owner.personal_api_key, ['project:read', 'endpoint:write']);
  const persons = await rest('persons/?distinct_id=alice');
  personUuid = persons.body.results[0].id;
});
afterAll(() => stack?.stop());

describe('events', () => {
  it('lists newest first, filtered by name, distinct id and time, under both prefixes', async () => {
    const all = await rest('events/');
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(['next', 'results']);
    expect(all.body.results).toHaveLength(14);
    expect(all.body.results[0]).toMatchObject({ event: '$groupidentify', timestamp: '2026-01-10T12:21:00.000000Z' });
    const signups = await rest('events/?event=signed_up&distinct_id=bob');
    expect(signups.body.results.map((event: { properties: { n: number } }) => event.properties.n)).toEqual([9, 6]);
    const window = await api(stack.url, 'GET', `/api/projects/${owner.environment_id}/events/?after=${at(4)}&before=${at(7)}`, { key: owner.personal_api_key });
    expect(window.body.results.map((event: { properties: { n: number } }) => event.properties.n)).toEqual([6, 5, 4]);
  });

  it('pages with `next`, each event once even where times tie', async () => {
    const seen: string[] = [];
    let url: string | null = `${stack.url}/api/environments/${owner.environment_id}/events/?limit=4&distinct_id=alice`;
    while (url) {
      const page: { next: string | null; results: { id: string }[] } = await fetch(url, { headers: { authorization: `Bearer ${owner.personal_api_key}` } }).then((response) => response.json() as never);
      seen.push(...page.results.map((event) => event.id));
      if (page.next) expect(page.next).toContain('distinct_id=alice');
      url = page.next;
    }
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
  });

  it('pages over GraphQL with next_cursor, and counts with the same filters', async () => {
    const query = 'query ($p: Int!, $cursor: String) { events(project_id: $p, limit: 10, cursor: $cursor) { next_cursor results { id } } }';
    const first = await gql(stack.graphqlUrl, query, { p: owner.environment_id }, owner.personal_api_key);
    const second = await gql(stack.graphqlUrl, query, { p: owner.environment_id, cursor: first.data.events.next_cursor }, owner.personal_api_key);
    expect([...first.data.events.results, ...second.data.events.results].map((event: { id: string }) => event.id).sort()).toEqual([...uuids].sort());
    expect(second.data.events.next_cursor).toBeNull();
    const count = await gql(stack.graphqlUrl, 'query ($p: Int!) { all: event_count(project_id: $p) signups: event_count(project_id: $p, event: "signed_up", after: "2026-01-10T12:05:00Z") }', { p: owner.environment_id }, owner.personal_api_key);
    expect(count.data).toEqual({ all: 14, signups: 2 });
  });

  it('reads one event by its uuid, and answers 404 for any other', async () => {
    const one = await rest(`events/${uuids[4]}/`);
    expect(one.body).toMatchObject({ id: uuids[4], distinct_id: 'alice', properties: { n: 4 } });
    expect((await rest(`events/${crypto.randomUUID()}/`)).status).toBe(404);
    expect((await rest('events/not-a-uuid/')).status).toBe(404);
  });

  it('answers 400 for a cursor or a time it cannot read', async () => {
    expect(await rest('events/?cursor=bm9wZQ')).toMatchObject({ status: 400, body: { attr: 'cursor' } });
    expect(await rest('events/?after=yesterday')).toMatchObject({ status: 400, body: { attr: 'after' } });
  });
});

// PostgreSQL's partitions and indexes; ClickHouse's sorting key is the table's own.
describe.skipIf(TEST_EVENTS_STORE === 'clickhouse')('events storage', () => {
  it.each([
    ['time', '', '_environment_id_timestamp_uuid_idx'],
    ['event name', 'and event = $2', '_environment_id_event_timestamp_idx'],
    ['distinct id', 'and distinct_id = $2', '_environment_id_distinct_id_timestamp_idx'],
  ])('reads an environment by %s through an index, from the month partitions the time range names', async (_by, condition, index) => {
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    try {
      await client.query('set enable_seqscan = off');
      const values: unknown[] = [owner.environment_id, ...(condition ? ['signed_up'] : []), at(0), at(30)];
      const range = `timestamp >= $${values.length - 1} and timestamp < $${values.length}`;
      const { rows } = await client.query(`explain (format json) select uuid from ingestion.events where environment_id = $1 ${condition} and ${range} order by timestamp desc limit 100`, values);
      const plan = JSON.stringify(rows[0]['QUERY PLAN']);
      expect(plan).toContain(`events_p202601${index}`);
      expect(plan).not.toMatch(/events_p2025|events_before_2000/);
    } finally {
      await client.end();
    }
  });
});

describe('persons and groups', () => {
  it("lists persons with PostHog's fields, searchable, and reads one by uuid", async () => {
    const persons = await rest('persons/');
    expect(persons.body.count).toBe(2);
    const alice = persons.body.results.find((person: { distinct_ids: string[] }) => person.distinct_ids.includes('alice'));
    expect(alice).toEqual({
      id: personUuid,
      uuid: personUuid,
      type: 'person',
      name: 'alice@example.com',
      distinct_ids: ['alice'],
      properties: { email: 'alice@example.com' },
      is_identified: false,
      created_at: '2026-01-10T12:00:00.000Z',
    });
    expect((await rest('persons/?search=ALICE@')).body.results.map((person: { id: string }) => person.id)).toEqual([personUuid]);
    expect((await rest('persons/?search=bob')).body.count).toBe(1);
    expect((await rest('persons/?search=email')).body.count).toBe(0);
    expect((await rest(`persons/${personUuid}/`)).body.name).toBe('alice@example.com');
    expect((await rest(`persons/${crypto.randomUUID()}/`)).status).toBe(404);
  });

  it('lists groups of one type and finds one by key', async () => {
    const groups = await rest('groups/?group_type_index=0');
    expect(groups.body.results).toEqual([{ group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme Inc' }, created_at: '2026-01-10T12:21:00.000Z' }]);
    expect((await rest('groups/?group_type_index=0&search=acme%20inc')).body.count).toBe(1);
    expect((await rest('groups/?group_type_index=0&search=name')).body.count).toBe(0);
    expect((await rest('groups/find/?group_type_index=0&group_key=acme')).body.group_key).toBe('acme');
    expect((await rest('groups/find/?group_type_index=0&group_key=nobody')).status).toBe(404);
    expect(await rest('groups/')).toMatchObject({ status: 400, body: { attr: 'group_type_index', code: 'required' } });
    expect(await rest('groups/?group_type_index=7')).toMatchObject({ status: 400, body: { attr: 'group_type_index' } });
  });
});

describe('scopes', () => {
  it.each([
    ['events/', 'query:read'],
    [`events/${'00000000-0000-0000-0000-000000000000'}/`, 'query:read'],
    ['persons/', 'person:read'],
    ['groups/?group_type_index=0', 'group:read'],
    ['groups/find/?group_type_index=0&group_key=acme', 'group:read'],
  ])('GET %s needs %s', async (path, scope) => {
    for (const other of ['unrelated', ...['query:read', 'person:read', 'group:read'].filter((candidate) => candidate !== scope)]) {
      const denied = await rest(path, keys[other]);
      expect(denied).toMatchObject({ status: 403, body: { code: 'permission_denied', detail: `API key missing required scope '${scope}'` } });
    }
    const allowed = await rest(path, keys[scope]);
    expect([200, 404]).toContain(allowed.status);
    expect((await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/${path}`)).status).toBe(401);
  });

  it('needs query:read for event_count over GraphQL', async () => {
    const result = await gql(stack.graphqlUrl, 'query ($p: Int!) { event_count(project_id: $p) }', { p: owner.environment_id }, keys['person:read']);
    expect(result.errors?.[0]?.message).toBe("API key missing required scope 'query:read'");
  });
});

describe('tenant isolation', () => {
  it.each(['events/', 'persons/', 'groups/?group_type_index=0', 'groups/find/?group_type_index=0&group_key=acme'])(
    "another organization's key gets 403 on GET %s of the owner's environment",
    async (path) => {
      expect(await rest(path, intruder.personal_api_key)).toMatchObject({ status: 403, body: { detail: "You don't have access to the project." } });
    },
  );

  it("finds nothing of the owner's under the intruder's own environment", async () => {
    const own = (path: string) => rest(path, intruder.personal_api_key, intruder.environment_id);
    expect((await own('events/')).body.results).toEqual([]);
    expect((await own(`events/${uuids[0]}/`)).status).toBe(404);
    expect((await own(`persons/${personUuid}/`)).status).toBe(404);
    expect((await own('persons/?search=alice')).body.count).toBe(0);
    expect((await own('groups/find/?group_type_index=0&group_key=acme')).status).toBe(404);
    const count = await gql(stack.graphqlUrl, 'query ($p: Int!) { event_count(project_id: $p) }', { p: intruder.environment_id }, intruder.personal_api_key);
    expect(count.data.event_count).toBe(0);
  });

  it("refuses the intruder's key on the owner's environment over GraphQL too", async () => {
    for (const query of [
      'query ($p: Int!) { events(project_id: $p) { results { id } } }',
      'query ($p: Int!) { event_count(project_id: $p) }',
      'query ($p: Int!) { persons(project_id: $p) { count } }',
      'query ($p: Int!) { groups(project_id: $p, group_type_index: 0) { count } }',
    ]) {
      const result = await gql(stack.graphqlUrl, query, { p: owner.environment_id }, intruder.personal_api_key);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'permission_denied', status: 403 });
    }
  });
});
