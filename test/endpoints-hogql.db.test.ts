import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEndpoint, endpointsPath, hogql, ingest, runEndpoint, SEED_EVENTS } from './kit/endpoints.js';
import { api } from './kit/http.js';
import { daysAgo } from './kit/ingest.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';
import { TEST_EVENTS_STORE } from './kit/events-store.js';
import { HOGQL_CASES, ESCAPE_ATTEMPTS } from './kit/hogql-cases.js';

let stack: Stack;
let owner: Tenant;
let other: Tenant;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  [owner, other] = await Promise.all([seedTenant(inject('databaseUrl'), 'hogql'), seedTenant(inject('databaseUrl'), 'hogql-other')]);
  await ingest(stack, owner, SEED_EVENTS);
  // Another organization's events, persons and groups: no query of `owner` may ever see them.
  await ingest(stack, other, [
    { event: '$identify', distinct_id: 'other-secret', timestamp: '2026-01-05T10:00:00Z', properties: { $set: { email: 'secret@other.example' } } },
    { event: '$pageview', distinct_id: 'other-secret', timestamp: '2026-01-05T10:30:00Z', properties: { $browser: 'Chrome', $pathname: '/secret' } },
    { event: 'purchase', distinct_id: 'other-secret', timestamp: '2026-01-07T10:30:00Z', properties: { amount: 1_000_000 } },
    { event: '$groupidentify', distinct_id: 'other-secret', timestamp: '2026-01-05T10:31:00Z', properties: { $group_type: 'company', $group_key: 'secret-co', $group_set: { name: 'Secret' } } },
  ]);
});
afterAll(() => stack?.stop());

describe('HogQL over the events, persons and groups ingestion stored', () => {
  it.each(HOGQL_CASES.map((testCase, index) => ({ ...testCase, index })))('$index: $query', async ({ query, rows, variables, declared, index }) => {
    const name = `case_${index}`;
    await createEndpoint(stack, owner, { name, query: hogql(query, declared) });
    const response = await runEndpoint(stack, owner, name, { refresh: 'force', ...(variables ? { variables } : {}) });
    expect(response.status, response.text).toBe(200);
    expect(response.body.results).toEqual(rows);
    expect(response.body.columns).toHaveLength(rows[0]?.length ?? response.body.columns.length);
  });

  it('reads relative to now: now(), today() and INTERVAL arithmetic', async () => {
    const recent = await seedTenant(inject('databaseUrl'), 'hogql-recent');
    await ingest(stack, recent, [
      { event: 'recent', distinct_id: 'r1', timestamp: daysAgo(3), properties: {} },
      { event: 'recent', distinct_id: 'r1', timestamp: daysAgo(20), properties: {} },
    ]);
    await createEndpoint(stack, recent, { name: 'recent', query: hogql('select count() from events where timestamp > now() - INTERVAL 7 DAY and toDate(timestamp) < today()') });
    const response = await runEndpoint(stack, recent, 'recent');
    expect(response.status, response.text).toBe(200);
    expect(response.body.results).toEqual([[1]]);
  });
});

describe('queries that try to read past their team', () => {
  it.each(ESCAPE_ATTEMPTS)('refuses $query', async ({ query, names }) => {
    const before = await api(stack.url, 'GET', endpointsPath(owner), { key: owner.personal_api_key });
    const response = await api(stack.url, 'POST', endpointsPath(owner), { key: owner.personal_api_key, body: { name: 'escape', query: hogql(query) } });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ type: 'validation_error', attr: 'query' });
    if (names) expect(response.body.detail).toContain(names);
    const after = await api(stack.url, 'GET', endpointsPath(owner), { key: owner.personal_api_key });
    expect(after.body.results.length).toBe(before.body.results.length);
  });

  it('binds every value: text that looks like SQL is only text', async () => {
    await createEndpoint(stack, owner, { name: 'injection', query: hogql("select count() from events where event = '$pageview'' or 1=1 --' or distinct_id = '*/ or 1=1 /*'") });
    const response = await runEndpoint(stack, owner, 'injection', { refresh: 'force' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.results).toEqual([[0]]);
  });

  it('binds variables as parameters, never as SQL', async () => {
    await createEndpoint(stack, owner, { name: 'bound', query: hogql('select count() from events where distinct_id = {variables.who}', { who: { code_name: 'who', value: 'u1' } }) });
    const injected = await runEndpoint(stack, owner, 'bound', { variables: { who: "u1' or '1'='1" } });
    expect(injected.status, injected.text).toBe(200);
    expect(injected.body.results).toEqual([[0]]);
    const other = await runEndpoint(stack, owner, 'bound', { variables: { who: 'other-secret' } });
    expect(other.body.results).toEqual([[0]]);
  });

  it("sees only its own team's rows, whatever it asks", async () => {
    const queries = [
      'select count() from events',
      'select count() from persons',
      'select count() from groups',
      'select count() from person_distinct_ids',
      "select count() from events where distinct_id = 'other-secret' or properties.$pathname = '/secret'",
      "select count() from persons where properties.email like '%other%'",
      "select count() from groups where key = 'secret-co'",
      'select max(toFloat(properties.amount)) from events',
    ];
    const expected = [[[13]], [[2]], [[2]], [[2]], [[0]], [[0]], [[0]], [[99.5]]];
    for (const [index, query] of queries.entries()) {
      await createEndpoint(stack, owner, { name: `isolated_${index}`, query: hogql(query) });
      const response = await runEndpoint(stack, owner, `isolated_${index}`, { refresh: 'force' });
      expect(response.status, response.text).toBe(200);
      if (index === 1 || index === 3) {
        // u3 has a person too when ingestion gives every distinct id one: two or three, never the other team's.
        expect([[[2]], [[3]]]).toContainEqual(response.body.results);
      } else {
        expect(response.body.results, query).toEqual(expected[index]);
      }
    }
  });
});

/**
 * The walls beneath the compiler, tried with SQL the compiler would never write: PostgreSQL's
 * reader role. On ClickHouse the walls are the reader's read-only connection and its limits
 * (subgraphs/shared/clickhouse/clickhouse.db.test.ts) and the team filter in every table reference.
 */
describe.skipIf(TEST_EVENTS_STORE === 'clickhouse')('the reader role, on its own', () => {
  async function asReader<T>(team: number | null, work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    try {
      await client.query('begin read only');
      if (team !== null) await client.query("select set_config('hogql.team_id', $1, true)", [String(team)]);
      await client.query('set local role analytics_hogql_reader');
      return await work(client);
    } finally {
      await client.query('rollback').catch(() => undefined);
      await client.end();
    }
  }
  const refused = (client: pg.Client, sql: string) => client.query(sql).then(() => 'ran', (error: { code: string }) => error.code);

  it("reads one team's rows of the ingestion tables, even past the views", async () => {
    const counts = await asReader(owner.environment_id, async (client) => (await client.query('select (select count(*)::int from ingestion.events) as raw, (select count(*)::int from ingestion.hogql_events) as viewed')).rows[0]);
    expect(counts).toEqual({ raw: 13, viewed: 13 });
    const none = await asReader(null, async (client) => (await client.query('select count(*)::int as n from ingestion.events')).rows[0].n);
    expect(none).toBe(0);
  });

  it('cannot take back the platform role, name another team, read other schemas or write', async () => {
    await asReader(owner.environment_id, async (client) => {
      expect(await refused(client, "select set_config('role', 'postgres', true)")).toBe('42501');
    });
    await asReader(owner.environment_id, async (client) => {
      expect(await refused(client, `select set_config('hogql.team_id', '${other.environment_id}', true)`)).toBe('42501');
    });
    for (const sql of ['select count(*) from accounts.users', 'select count(*) from endpoints.endpoints', 'select count(*) from ingestion.profile_updates', 'select * from job_queue.job']) {
      await asReader(owner.environment_id, async (client) => expect(await refused(client, sql), sql).toBe('42501'));
    }
    await asReader(owner.environment_id, async (client) => expect(await refused(client, "delete from ingestion.events")).toBe('25006'));
  });
});
