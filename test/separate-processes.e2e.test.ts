import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { api, gql } from './kit/http.js';
import { BUILD_DIR, freePort, startPlatform, type Platform } from './kit/process.js';
import { seedTenant } from './kit/seed.js';
import { TEST_SECRET_KEY } from './kit/stack.js';
import { subgraphs } from '../subgraphs/index.js';
import { generateEvents } from './kit/events.js';

/** Starts a built entry point and resolves with the first stdout line that matches. */
function startProcess(script: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) resolve({ child, line: match[0] });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${stderr.slice(-2000)}`)));
  });
}

describe('the parts as separate processes', () => {
  const children: ChildProcess[] = [];
  let router: Platform | undefined;
  afterAll(() => {
    for (const child of children) child.kill('SIGTERM');
    router?.child.kill('SIGTERM');
  });

  it('serves REST from its own process, through a router that routes to subgraph processes', async () => {
    const common = {
      DATABASE_URL: inject('databaseUrl'),
      REDIS_URL: inject('redisUrl'),
      REDIS_CHANNEL_PREFIX: `test-separate-${process.pid}:`,
      SECRET_KEY: TEST_SECRET_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-separate-')),
      LOG_LEVEL: 'warn',
    };
    const urls: string[] = [];
    for (const { name } of subgraphs) {
      const { child, line } = await startProcess(`${BUILD_DIR}/router/process/cli/subgraph.cli.js`, [name], { ...common, SUBGRAPH_PORT: String(await freePort()) }, /http:\/\/\S+\/graphql/);
      children.push(child);
      urls.push(`${name}=${line}`);
    }
    router = await startPlatform({ ...common, PORT: String(await freePort()), SUBGRAPH_URLS: urls.join(',') });
    const restPort = await freePort();
    const rest = await startProcess(`${BUILD_DIR}/rest-compat/main.js`, [], { ...common, PORT: String(restPort), ROUTER_URL: `${router.url}/graphql` }, /listening/);
    children.push(rest.child);
    const restUrl = `http://127.0.0.1:${restPort}`;

    expect((await api(router.url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect(await api(restUrl, 'GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    // Its detail is the router's, with the router itself.
    const detail = await api(restUrl, 'GET', '/healthz/detail');
    expect(detail).toMatchObject({ status: 200, body: { status: 'ok', parts: { router: 'up', accounts: 'up', projects: 'up', pubsub: 'up' } } });
    const tenant = await seedTenant(inject('databaseUrl'), 'separate');
    const created = await api(restUrl, 'POST', `/api/environments/${tenant.environment_id}/customer_profile_configs/`, {
      key: tenant.personal_api_key,
      body: { scope: 'group_0', content: { apart: true } },
    });
    expect(created.status).toBe(201);
    const listed = await api(restUrl, 'GET', `/api/environments/${tenant.environment_id}/customer_profile_configs`, { key: tenant.personal_api_key });
    expect(listed.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(listed.body.results[0].id).toBe(created.body.id);
    expect((await api(restUrl, 'GET', `/api/environments/${tenant.environment_id}/customer_profile_configs/`)).status).toBe(401);
    const viaRouter = await gql(`${router.url}/graphql`, 'query ($p: Int!) { customer_profile_configs(project_id: $p) { results { project { name } } } }', { p: tenant.environment_id }, tenant.personal_api_key);
    expect(viaRouter.data.customer_profile_configs.results).toEqual([{ project: { name: 'Default project' } }]);

    // /batch/ from the REST process (well over the 1 MiB of an anonymous GraphQL request), persons
    // from the ingestion subgraph's own worker.
    const large = [...generateEvents(1000, { users: 1 })].map((event) => ({ ...event, distinct_id: 'apart' }));
    const batch = await api(restUrl, 'POST', '/batch/', { body: { api_key: tenant.project_api_key, historical_migration: true, batch: large } });
    expect(JSON.stringify(large).length).toBeGreaterThan(1_048_576);
    expect(batch).toMatchObject({ status: 200, body: { status: 'Ok' } });
    const events = await api(restUrl, 'GET', `/api/environments/${tenant.environment_id}/events/?limit=1000`, { key: tenant.personal_api_key });
    expect(events.body.results).toHaveLength(1000);
    await expect.poll(async () => (await api(restUrl, 'GET', `/api/environments/${tenant.environment_id}/persons/`, { key: tenant.personal_api_key })).body.count, { timeout: 10_000 }).toBe(1);

    // A key revoked in the accounts process is refused by the router at once: it hears it on Redis.
    const key = await api(restUrl, 'POST', '/api/personal_api_keys/', { key: tenant.personal_api_key, body: { label: 'apart', scopes: ['user:read'] } });
    expect((await api(restUrl, 'GET', '/api/users/@me/', { key: key.body.value })).status).toBe(200);
    expect((await api(restUrl, 'DELETE', `/api/personal_api_keys/${key.body.id}/`, { key: tenant.personal_api_key })).status).toBe(204);
    expect((await api(restUrl, 'GET', '/api/users/@me/', { key: key.body.value })).status).toBe(401);

    // A subgraph away: an operation of which nothing could be answered is a 503 to retry, over
    // GraphQL (its HTTP status too) as over REST.
    children[subgraphs.findIndex(({ name }) => name === 'customer-profiles')]!.kill('SIGKILL');
    const unavailable = { status: 503, retryAfter: expect.stringMatching(/^\d+$/), code: 'service_unavailable' };
    const operation = async (query: string) => {
      const response = await fetch(`${router!.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.personal_api_key}` },
        body: JSON.stringify({ query, variables: { p: tenant.environment_id } }),
      });
      const body = (await response.json()) as { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] };
      return { status: response.status, retryAfter: response.headers.get('retry-after'), code: body.errors?.[0]?.extensions?.code, data: body.data };
    };
    const configs = 'customer_profile_configs(project_id: $p) { count }';
    await expect.poll(async () => (await operation(`query ($p: Int!) { ${configs} }`)).status, { timeout: 10_000 }).toBe(503);
    expect(await operation(`query ($p: Int!) { ${configs} }`)).toMatchObject(unavailable);
    // With another root field: both are non-null, so the data is null and nothing was answered.
    expect(await operation(`query ($p: Int!) { me { email } ${configs} }`)).toMatchObject({ ...unavailable, data: null });
    expect(await operation(`query ($p: Int!) { customer_profile_configs(project_id: $p) { results { project { name } } } }`)).toMatchObject(unavailable);
    const viaRest = await api(restUrl, 'GET', `/api/environments/${tenant.environment_id}/customer_profile_configs/`, { key: tenant.personal_api_key });
    expect({ status: viaRest.status, retryAfter: viaRest.headers.get('retry-after'), code: viaRest.body.code }).toEqual(unavailable);

    // The REST layer is as healthy as the router it sends everything to.
    router.child.kill('SIGTERM');
    await expect.poll(async () => (await api(restUrl, 'GET', '/healthz')).status, { timeout: 15_000 }).toBe(503);
    expect((await api(restUrl, 'GET', '/healthz')).body).toEqual({ status: 'unavailable', down: ['router'] });
    // And what it cannot send is a 503 to retry, not a 500.
    for (const [method, path, body] of [['GET', '/api/users/@me/'], ['POST', '/batch/', { api_key: tenant.project_api_key, batch: [large[0]] }]] as const) {
      const refused = await api(restUrl, method, path, { key: tenant.personal_api_key, body });
      expect(refused, path).toMatchObject({ status: 503, body: { type: 'server_error', code: 'service_unavailable', detail: 'The router is unavailable; try again shortly.' } });
      expect(refused.headers.get('retry-after'), path).toBe('5');
    }
  });
});
