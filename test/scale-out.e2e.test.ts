import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readSupergraphConfig } from '../schema/compose.js';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { sql } from './kit/db.js';
import { api, gql } from './kit/http.js';
import { anEvent } from './kit/ingest.js';
import { portTaken, readProcfile, startEntry, untilAnswers, type ProcfileEntry, type ProcfileProcess } from './kit/procfile.js';
import { BUILD_DIR, freePort, runCli } from './kit/process.js';
import { ownRedis, stopRedis } from './kit/redis.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { TEST_SECRET_KEY } from './kit/stack.js';
import { collect, wsClient } from './kit/ws.js';

/**
 * The deployment of the Procfile, started as it is written: every subgraph a process of its own,
 * two routers and the Hive Gateway CLI over one PostgreSQL and Redis, on the ports it names. The
 * database and the Redis server are this file's own, so that it can take them away.
 */
const entries = readProcfile();
const routing = new Map(readSupergraphConfig().map((entry) => [entry.name, new URL(entry.routing_url)]));

/** Where a Procfile process answers once it is up: its health check. */
function healthUrl(entry: ProcfileEntry): string {
  const subgraph = routing.get(entry.name);
  if (subgraph) return `${subgraph.origin}/healthz`;
  const port = /PORT=(\d+)/.exec(entry.command)?.[1] ?? /--port (\d+)/.exec(entry.command)?.[1];
  return entry.name.startsWith('router') ? `http://127.0.0.1:${port}/healthz` : `http://127.0.0.1:${port}/readiness`;
}
const origin = (name: string) => new URL(healthUrl(entries.find((entry) => entry.name === name)!)).origin;

const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  REDIS_CHANNEL_PREFIX: `test-scale-out-${process.pid}:`,
  SECRET_KEY: TEST_SECRET_KEY,
  DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-scale-out-')),
  LOG_LEVEL: 'warn',
  // The load below is one key's: the rate limits are tested on their own.
  RATE_LIMIT_PERSONAL_KEY_PER_MINUTE: '0',
  RATE_LIMIT_PERSONAL_KEY_PER_HOUR: '0',
};

const running = new Map<string, ProcfileProcess>();
let tenant: Tenant;
let redis: ChildProcess;
let redisPort: number;

async function start(names: string[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const process = startEntry(entries.find((entry) => entry.name === name)!, env);
      running.set(name, process);
      await untilAnswers(healthUrl(process.entry), process);
    }),
  );
}

beforeAll(async () => {
  const taken = (await Promise.all(entries.map(async (entry) => ((await portTaken(Number(new URL(healthUrl(entry)).port))) ? healthUrl(entry) : '')))).filter(Boolean);
  if (taken.length) throw new Error(`the Procfile's ports are in use (stop what listens there): ${taken.join(', ')}`);
  env.DATABASE_URL = await createScratchDatabase(inject('databaseUrl'), 'analytics_scale_out');
  redisPort = await freePort();
  redis = await ownRedis(redisPort);
  env.REDIS_URL = `redis://127.0.0.1:${redisPort}`;
  const migrated = await runCli(`${BUILD_DIR}/router/process/cli/migrate.cli.js`, [], env);
  if (migrated.code !== 0) throw new Error(`migrations failed: ${migrated.stderr}`);
  await start(entries.filter((entry) => routing.has(entry.name)).map((entry) => entry.name));
  await start(entries.filter((entry) => !routing.has(entry.name)).map((entry) => entry.name));
  tenant = await seedTenant(env.DATABASE_URL!, 'scale-out');
}, 240_000);

afterAll(async () => {
  for (const process of running.values()) process.kill('SIGTERM');
  await Promise.all([...running.values()].map((process) => Promise.race([process.exited, new Promise((resolve) => setTimeout(resolve, 15_000))])));
  for (const process of running.values()) process.kill('SIGKILL');
  if (redis) await stopRedis(redis);
  if (env.DATABASE_URL) await dropDatabase(env.DATABASE_URL);
}, 30_000);

const CHANGES = 'subscription ($p: Int!) { customer_profile_config_changed(project_id: $p) { action id config { scope project { name } } } }';
const CONFIGS = 'query ($p: Int!) { customer_profile_configs(project_id: $p) { count results { id } } }';

describe('the Procfile deployment', () => {
  it('lists a process per subgraph, two routers and the Hive Gateway CLI', () => {
    expect(entries.map((entry) => entry.name).sort()).toEqual([...routing.keys(), 'gateway', 'router-a', 'router-b'].sort());
  });

  it('serves a mutation, queries through every router, a subscription across processes and an ingestion batch', async () => {
    const key = tenant.personal_api_key;
    const p = tenant.environment_id;
    // Subscribed through the Hive Gateway CLI; the change is made through router A.
    const client = wsClient(`${origin('gateway').replace('http', 'ws')}/graphql`, key);
    const changes = collect(client, CHANGES, { p });
    let created: { id: string } | undefined;
    for (let attempt = 0; attempt < 50 && !changes.results.length; attempt++) {
      const answer = await api(origin('router-a'), 'POST', `/api/environments/${p}/customer_profile_configs/`, { key, body: { scope: 'person', content: { attempt } } });
      expect(answer.status).toBe(201);
      created = answer.body;
      await changes.next(1, 1000).catch(() => undefined);
    }
    const [change] = await changes.next(1);
    expect(change!.errors).toBeUndefined();
    expect(change!.data.customer_profile_config_changed).toMatchObject({ action: 'created', config: { scope: 'person', project: { name: 'Default project' } } });
    changes.dispose();
    await client.dispose();

    // Read back through router B (GraphQL) and the gateway (GraphQL): the same data.
    for (const url of [origin('router-b'), origin('gateway')]) {
      const listed = await gql(`${url}/graphql`, CONFIGS, { p }, key);
      expect(listed.errors, url).toBeUndefined();
      expect(listed.data.customer_profile_configs.results.map((r: { id: string }) => r.id), url).toContain(created!.id);
    }
    // The gateway refuses as the router does: no key, no data, the contract's code.
    const anonymous = await gql(`${origin('gateway')}/graphql`, CONFIGS, { p });
    expect(anonymous.errors?.[0]?.extensions).toMatchObject({ code: 'not_authenticated', status: 401 });

    // An ingestion batch through router B; the events read through the gateway.
    const batch = await api(origin('router-b'), 'POST', '/batch/', { body: { api_key: tenant.project_api_key, batch: Array.from({ length: 20 }, (_, i) => anEvent({ distinct_id: `scaled-${i}` })) } });
    expect(batch).toMatchObject({ status: 200, body: { status: 'Ok' } });
    const events = await gql(`${origin('gateway')}/graphql`, 'query ($p: Int!) { events(project_id: $p, limit: 100) { results { distinct_id } } }', { p }, key);
    expect(events.errors).toBeUndefined();
    expect(events.data.events.results).toHaveLength(20);
  });

  it('answers around a subgraph killed under load, and serves fully again once it is back', async () => {
    const key = tenant.personal_api_key;
    const p = tenant.environment_id;
    const answers: { sent: number; at: number; both: boolean; errors: number; full: boolean; partial: boolean; ms: number; error?: unknown }[] = [];
    let loading = true;
    const load = async (client: number) => {
      for (let i = 0; loading; i++) {
        // Every request differs (its own offset); half of them need the subgraph that is killed.
        const both = (i + client) % 2 === 0;
        const query = both ? 'query ($p: Int!, $o: Int) { me { email } customer_profile_configs(project_id: $p, offset: $o) { count } }' : 'query ($p: Int!, $o: Int) { me { email } persons(project_id: $p, offset: $o) { results { id } } }';
        const sent = Date.now();
        const answer = await gql(`${origin('router-a')}/graphql`, query, { p, o: i % 50 }, key).catch(() => ({ status: 0, data: undefined, errors: [{ message: 'no answer' }] }));
        const errors = answer.errors?.length ?? 0;
        answers.push({ sent, at: Date.now(), both, errors, full: errors === 0 && answer.data?.me?.email !== undefined, partial: errors > 0 && answer.data?.me?.email !== undefined, ms: Date.now() - sent, error: answer.errors?.[0] });
      }
    };
    const clients = Array.from({ length: 4 }, (_, client) => load(client));
    await new Promise((resolve) => setTimeout(resolve, 2000));

    const subgraph = running.get('customer-profiles')!;
    const killedAt = Date.now();
    subgraph.kill('SIGKILL');
    await subgraph.exited;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const restartedAt = Date.now();
    await start(['customer-profiles']);
    const readyAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    loading = false;
    await Promise.all(clients);

    const before = answers.filter((a) => a.at < killedAt);
    const during = answers.filter((a) => a.at >= killedAt + 200 && a.at < restartedAt);
    // Judged by when a request was sent: one sent while the subgraph was down may be answered
    // (with its error) just after the restart.
    const after = answers.filter((a) => a.sent >= readyAt);
    const firstError = answers.find((a) => a.at >= killedAt && a.both && a.errors > 0);
    const lastError = [...answers].reverse().find((a) => a.both && a.errors > 0);
    const fullAgain = answers.find((a) => a.at >= restartedAt && a.both && a.full);
    // Before the kill everything is whole; while it is down, what needs it is an error and the rest
    // is whole; once it is back, everything is whole again.
    expect(before.every((a) => a.full)).toBe(true);
    expect(during.filter((a) => !a.both).every((a) => a.full)).toBe(true);
    expect(during.filter((a) => a.both).every((a) => a.errors > 0)).toBe(true);
    expect(after.filter((a) => !a.full).map((a) => ({ sentAfterReady: a.sent - readyAt, error: a.error }))).toEqual([]);
    expect(firstError && fullAgain).toBeTruthy();
    // The error names the subgraph and asks for a retry (503); the subgraph call itself stays private.
    expect(firstError!.error).toMatchObject({ message: 'The customer-profiles service is unavailable; try again shortly.', extensions: { code: 'service_unavailable', type: 'server_error', status: 503, serviceName: 'customer-profiles' } });
    expect(firstError!.error).not.toHaveProperty('extensions.request');
    const slowest = Math.max(...during.map((a) => a.ms));
    process.stdout.write(
      `subgraph killed under load (customer-profiles, 4 clients through router-a): ${answers.length} answers; ` +
        `first error ${firstError!.at - killedAt} ms after the kill; while down ${during.filter((a) => a.both).length} answers needing it (partial data: ${during.filter((a) => a.partial).length}), slowest ${slowest} ms, ` +
        `${during.filter((a) => !a.both).length} others whole; restarted: healthy after ${readyAt - restartedAt} ms, whole again ${fullAgain!.at - restartedAt} ms after the restart (last error ${lastError!.at - restartedAt} ms)\n`,
    );
  }, 120_000);
});

describe('health in the Procfile deployment', () => {
  const subgraphNames = [...routing.keys()];
  const health = (url: string, path = '/healthz') => api(url, 'GET', path);
  const everyPart = (state: string) => ({ ...Object.fromEntries(subgraphNames.map((name) => [name, state])), pubsub: state });
  const whole = async () => {
    for (const name of subgraphNames) await expect.poll(async () => (await health(routing.get(name)!.origin)).status, { timeout: 20_000 }).toBe(200);
    for (const router of ['router-a', 'router-b']) await expect.poll(async () => (await health(origin(router), '/healthz/detail')).status, { timeout: 20_000 }).toBe(200);
  };

  it('keeps a router serving while a subgraph that authenticates no one is down, and names that subgraph in the detail', async () => {
    expect(await health(origin('router-a'))).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await health(origin('router-a'), '/healthz/detail')).toMatchObject({ status: 200, body: { status: 'ok', parts: everyPart('up') } });
    const endpoints = running.get('endpoints')!;
    endpoints.kill('SIGKILL');
    await endpoints.exited;
    try {
      expect(await health(origin('router-a'))).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(await health(origin('router-a'), '/healthz/detail')).toMatchObject({ status: 503, body: { status: 'degraded', parts: { ...everyPart('up'), endpoints: 'down' } } });
    } finally {
      await start(['endpoints']);
    }
    await whole();
  }, 60_000);

  it('answers 503 from every subgraph and router while the database refuses connections, naming it, and 200 once it takes them again', async () => {
    const database = decodeURIComponent(new URL(env.DATABASE_URL!).pathname.slice(1));
    await sql(inject('databaseUrl'), `alter database "${database}" allow_connections false`);
    try {
      // Connections made before are let be: end them, so that every new one is refused (SQLSTATE 55000).
      await sql(inject('databaseUrl'), 'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
      for (const name of subgraphNames) {
        await expect.poll(async () => (await health(routing.get(name)!.origin)).status, { timeout: 10_000 }).toBe(503);
        expect((await health(routing.get(name)!.origin)).body).toEqual({ status: 'unavailable', down: ['database'] });
      }
      const router = await health(origin('router-a'));
      expect(router.status).toBe(503);
      expect(router.body.down).toEqual(subgraphNames);
      expect(await health(origin('router-a'), '/healthz/detail')).toMatchObject({ status: 503, body: { status: 'unavailable', parts: { ...everyPart('down'), pubsub: 'up' } } });
    } finally {
      await sql(inject('databaseUrl'), `alter database "${database}" allow_connections true`);
    }
    await whole();
  }, 90_000);

  it('answers 503 from every subgraph and router while Redis is stopped, naming it, and 200 once it is back', async () => {
    await stopRedis(redis);
    try {
      for (const name of subgraphNames) {
        await expect.poll(async () => (await health(routing.get(name)!.origin)).status, { timeout: 10_000 }).toBe(503);
        expect((await health(routing.get(name)!.origin)).body).toEqual({ status: 'unavailable', down: ['pubsub'] });
      }
      const router = await health(origin('router-b'));
      expect(router.status).toBe(503);
      expect(router.body.down).toContain('pubsub');
    } finally {
      redis = await ownRedis(redisPort);
    }
    await whole();
  }, 90_000);
});
