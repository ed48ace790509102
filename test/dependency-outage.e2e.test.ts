import type { ChildProcess } from 'node:child_process';
import { parse } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ACTOR_HEADER, ActorSigner, SERVICE, type Actor } from '../subgraphs/shared/auth/actor.js';
import { isDatabaseUnavailable } from '../subgraphs/shared/db/database-unavailable.js';
import { sql } from './kit/db.js';
import { api } from './kit/http.js';
import { anEvent, postBatch } from './kit/ingest.js';
import { startPgProxy, type PgProxy, type ProxyMode } from './kit/pg-proxy.js';
import { freePort } from './kit/process.js';
import { ownRedis } from './kit/redis.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';
import { collect, wsClient } from './kit/ws.js';

/**
 * Each way a dependency can be away, through the running platform: every path (REST, GraphQL over
 * HTTP and graphql-ws, `/batch/`) answers 503 with Retry-After, never the 500 of a defect. The
 * platform reaches PostgreSQL through a proxy of this test's, on a database of its own.
 */
const admin = inject('databaseUrl');
const database = `analytics_outage_${process.pid}`;
const direct = Object.assign(new URL(admin), { pathname: `/${database}` }).toString();

let stack: Stack;
let proxy: PgProxy;
let tenant: Tenant;
let redis: ChildProcess;

beforeAll(async () => {
  await sql(admin, `drop database if exists ${database}`);
  await sql(admin, `create database ${database}`);
  proxy = await startPgProxy(direct);
  const redisPort = await freePort();
  redis = await ownRedis(redisPort);
  // A connection that the server takes and never answers fails after this, not knex's minute.
  stack = await startStack({ databaseUrl: proxy.url, redisUrl: `redis://127.0.0.1:${redisPort}`, env: { DATABASE_CONNECT_TIMEOUT_SECONDS: '1' } });
  tenant = await seedTenant(direct, 'outage');
}, 120_000);

afterAll(async () => {
  redis?.kill('SIGKILL');
  await proxy?.set('pass');
  await stack?.stop();
  await proxy?.close();
  await sql(admin, `alter database ${database} allow_connections true`).catch(() => undefined);
  await sql(admin, `drop database if exists ${database} with (force)`);
});

const configsPath = () => `/api/environments/${tenant.environment_id}/customer_profile_configs/`;
const CONFIGS = 'query ($id: Int!) { customer_profile_configs(project_id: $id) { count } }';

/** The request of each path, as clients send them. */
const requests = {
  rest: () => api(stack.url, 'GET', configsPath(), { key: tenant.personal_api_key }),
  // A plain POST (the router's fast path) and a GET (the gateway's own pipeline).
  graphqlPost: () => graphql('POST', CONFIGS, { id: tenant.environment_id }),
  graphqlGet: () => graphql('GET', CONFIGS, { id: tenant.environment_id }),
  batch: () => postBatch(stack, { api_key: tenant.project_api_key, batch: [anEvent()] }),
};

async function graphql(method: 'GET' | 'POST', query: string, variables: Record<string, unknown>) {
  const headers = { authorization: `Bearer ${tenant.personal_api_key}`, 'content-type': 'application/json' };
  const response =
    method === 'POST'
      ? await fetch(stack.graphqlUrl, { method, headers, body: JSON.stringify({ query, variables }) })
      : await fetch(`${stack.graphqlUrl}?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`, { headers: { ...headers, accept: 'application/json' } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] } };
}

/** What every path answers while the database is away: 503, Retry-After, the contract's error. */
async function expectUnavailable(): Promise<void> {
  const rest = await requests.rest();
  expect({ status: rest.status, retryAfter: rest.headers.get('retry-after'), body: rest.body }).toMatchObject({
    status: 503,
    retryAfter: expect.stringMatching(/^\d+$/),
    body: { type: 'server_error', code: 'service_unavailable', detail: expect.any(String), attr: null },
  });
  // With a field of another subgraph: that one needs the database as well, so nothing is answered.
  const mixed = () => graphql('POST', 'query ($id: Int!) { me { email } customer_profile_configs(project_id: $id) { count } }', { id: tenant.environment_id });
  for (const request of [requests.graphqlPost, requests.graphqlGet, mixed]) {
    const answer = await request();
    expect({ status: answer.status, retryAfter: answer.headers.get('retry-after'), code: answer.body.errors?.[0]?.extensions?.code }).toEqual({
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/),
      code: 'service_unavailable',
    });
  }
  const batch = await requests.batch();
  expect({ status: batch.status, retryAfter: batch.headers.get('retry-after'), code: batch.body?.code }).toEqual({
    status: 503,
    retryAfter: expect.stringMatching(/^\d+$/),
    code: 'service_unavailable',
  });
}

/** Every path answers again once the database is back (a lookup of the key may need a second try). */
async function expectRecovered(): Promise<void> {
  await expect.poll(async () => (await requests.rest()).status, { timeout: 15_000, interval: 200 }).toBe(200);
  expect((await requests.graphqlPost()).status).toBe(200);
  expect((await requests.batch()).status).toBe(200);
}

async function throughProxy(mode: ProxyMode, check: () => Promise<void>): Promise<void> {
  await proxy.set(mode);
  try {
    await check();
  } finally {
    await proxy.set('pass');
  }
  await expectRecovered();
}

describe('when the database is unavailable', () => {
  it('answers 503 with Retry-After everywhere while the database refuses connections (SQLSTATE 55000)', async () => {
    await expectRecovered();
    await sql(admin, `alter database ${database} allow_connections false`);
    try {
      // Its pooled connections are gone too: every request must open one, and is refused.
      await sql(admin, 'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
      await expectUnavailable();
    } finally {
      await sql(admin, `alter database ${database} allow_connections true`);
    }
    await expectRecovered();
  }, 60_000);

  it('answers 503 with Retry-After when its connection is terminated mid-request (SQLSTATE 57P01)', async () => {
    await expectRecovered();
    // A lock holds each request in the database (as a long statement would) until it is terminated.
    const locker = new pg.Client({ connectionString: direct });
    await locker.connect();
    try {
      const lockerPid = (await locker.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      await locker.query('begin');
      await locker.query('lock table customer_profiles.customer_profile_configs, ingestion.events in access exclusive mode');
      const terminated = async <T>(request: () => Promise<T>): Promise<T> => {
        let answered: T | undefined;
        const answer = request().then((value) => (answered = value));
        const waiting = async () => (await sql(admin, `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and wait_event_type = 'Lock' and pid <> $2`, [database, lockerPid])).length;
        await expect.poll(async () => (answered === undefined ? await waiting() : 1), { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
        return answer;
      };
      const rest = await terminated(requests.rest);
      expect([rest.status, rest.headers.get('retry-after'), rest.body?.code]).toEqual([503, expect.stringMatching(/^\d+$/), 'service_unavailable']);
      const graphqlAnswer = await terminated(requests.graphqlPost);
      expect([graphqlAnswer.status, graphqlAnswer.headers.get('retry-after'), graphqlAnswer.body.errors?.[0]?.extensions?.code]).toEqual([503, expect.stringMatching(/^\d+$/), 'service_unavailable']);
      const batch = await terminated(requests.batch);
      expect([batch.status, batch.headers.get('retry-after'), batch.body?.code]).toEqual([503, expect.stringMatching(/^\d+$/), 'service_unavailable']);
    } finally {
      await locker.end();
    }
    await expectRecovered();
  }, 60_000);

  it('answers 503 with Retry-After while the server is starting up or shutting down (SQLSTATE 57P03)', async () => {
    await throughProxy({ sqlstate: '57P03', message: 'the database system is starting up' }, expectUnavailable);
  }, 60_000);

  it('answers 503 with Retry-After while its server refuses connections (ECONNREFUSED)', async () => {
    await throughProxy('refuse', expectUnavailable);
  }, 60_000);

  it('answers 503 with Retry-After while its connections are reset (ECONNRESET)', async () => {
    await throughProxy('reset', expectUnavailable);
  }, 60_000);

  it('answers 503 with Retry-After while its server takes connections and never answers (pool timeout)', async () => {
    await throughProxy('silent', expectUnavailable);
  }, 60_000);

  it('refuses a subscription with a 503 error while the database is away, over graphql-ws', async () => {
    await expectRecovered();
    const client = wsClient(stack.wsUrl, tenant.personal_api_key);
    // Connected (its key looked up) while the database is there.
    await client.subscribe({ query: '{ me { email } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
    await proxy.set('refuse');
    try {
      // An environment that no subscription has placed yet: its start asks the database.
      const events = collect(client, 'subscription ($id: Int!) { customer_profile_config_changed(project_id: $id) { sequence } }', { id: 2_000_000_000 });
      await events.next(1);
      expect(events.results[0]?.errors?.[0]?.extensions).toMatchObject({ code: 'service_unavailable', status: 503 });
      // Over server-sent events, refused before the stream starts.
      const streamed = await fetch(stack.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${tenant.personal_api_key}` },
        body: JSON.stringify({ query: 'subscription ($id: Int!) { customer_profile_config_changed(project_id: $id) { sequence } }', variables: { id: 2_000_000_001 } }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await streamed.text();
      expect({ status: streamed.status, retryAfter: streamed.headers.get('retry-after'), text }).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/), text: expect.stringContaining('service_unavailable') });
    } finally {
      await client.dispose();
      await proxy.set('pass');
    }
    await expectRecovered();
  }, 60_000);

  it('answers a subgraph called directly with the 503 error, not a server error', async () => {
    await proxy.set('refuse');
    try {
      const header = new ActorSigner(TEST_SECRET_KEY).sign(SERVICE);
      const response = await fetch(stack.subgraphs.urls.accounts!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [ACTOR_HEADER]: header },
        body: JSON.stringify({ query: 'query ($value: String!) { _authenticate_personal_api_key(value: $value) { key_id } }', variables: { value: tenant.personal_api_key } }),
      });
      const body = (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] };
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'service_unavailable', status: 503 });
      // A subscription refused at its start, as the router of the same process calls the subgraph.
      const subscription = 'subscription ($id: Int!) { customer_profile_config_changed(project_id: $id) { sequence } }';
      const user: Actor = { kind: 'personal_api_key', user: { id: 1, uuid: crypto.randomUUID() }, key_id: 'outage', scopes: ['*'], organizations: {} };
      const started = await stack.subgraphs.local['customer-profiles']!.subscribe({ document: parse(subscription), variables: { id: 2_000_000_002 } }, user);
      expect(Symbol.asyncIterator in started ? 'a stream' : started.errors?.[0]?.extensions).toMatchObject({ code: 'service_unavailable', status: 503 });
      // And over the subgraph's own graphql-ws, as a router in another process calls it.
      const client = createClient({ url: stack.subgraphs.urls['customer-profiles']!.replace('http', 'ws'), webSocketImpl: WebSocket, connectionParams: { [ACTOR_HEADER]: new ActorSigner(TEST_SECRET_KEY).sign(user) }, retryAttempts: 0 });
      try {
        const events = collect(client, subscription, { id: 2_000_000_003 });
        await events.next(1);
        expect(events.results[0]?.errors?.[0]?.extensions).toMatchObject({ code: 'service_unavailable', status: 503 });
      } finally {
        await client.dispose();
      }
    } finally {
      await proxy.set('pass');
    }
  }, 60_000);
});

describe('what PostgreSQL answers a connection it will not take', () => {
  it('is an outage for each of its codes, as the real driver reads them', async () => {
    const refusing = await startPgProxy(direct);
    try {
      for (const [sqlstate, message] of [
        ['57P01', 'terminating connection due to administrator command'],
        ['57P02', 'terminating connection because of crash of another server process'],
        ['57P03', 'the database system is shutting down'],
        ['57P04', `database "${database}" does not exist`],
        ['57P05', 'terminating connection due to idle-session timeout'],
        ['53300', 'sorry, too many clients already'],
        ['55000', `database "${database}" is not currently accepting connections`],
        ['08P01', 'invalid frontend message type'],
      ] as const) {
        await refusing.set({ sqlstate, message });
        const client = new pg.Client({ connectionString: refusing.url });
        const error = await client.connect().then(
          () => undefined,
          (failure: unknown) => failure,
        );
        expect({ code: (error as { code?: string }).code, unavailable: isDatabaseUnavailable(error) }).toEqual({ code: sqlstate, unavailable: true });
      }
    } finally {
      await refusing.close();
    }
  });
});

describe('when Redis is down', () => {
  it('goes on answering what only degrades without it (rate limits, caches), and answers no 500', async () => {
    await expectRecovered();
    redis.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const request of Object.values(requests)) {
      const answer = await request();
      expect(answer.status === 200 || (answer.status === 503 && answer.headers.get('retry-after') !== null), `${answer.status} ${JSON.stringify(answer.body)}`).toBe(true);
    }
  }, 60_000);
});
