import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Authenticator } from '../router/auth.js';
import { ACTOR_HEADER, ACTOR_TTL_SECONDS, ActorSigner } from '../subgraphs/shared/auth/actor.js';
import { api } from './kit/http.js';
import { BUILD_DIR } from './kit/process.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';
import { collect, wsClient } from './kit/ws.js';

const CHANGES = `subscription ($p: Int!) {
  customer_profile_config_changed(project_id: $p) { sequence action id config { id scope content project { id name } } }
}`;

const configs = (tenant: Tenant) => `/api/environments/${tenant.environment_id}/customer_profile_configs/`;

/**
 * Waits until the subscription is live end to end (client, router, subgraph, pub/sub) by
 * creating probe configs until one is heard; returns how many events the probes produced.
 */
async function untilLive(stack: Stack, tenant: Tenant, events: ReturnType<typeof collect>): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    await api(stack.url, 'POST', configs(tenant), { key: tenant.personal_api_key, body: { scope: 'person', content: { probe: attempt } } });
    try {
      await events.next(1, 200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return events.results.length;
    } catch {
      // not live yet
    }
  }
  throw new Error('subscription never became live');
}

describe('subscriptions through the router, in-process pub/sub', () => {
  let stack: Stack;
  let tenant: Tenant;
  beforeAll(async () => {
    stack = await startStack({ databaseUrl: inject('databaseUrl') });
    tenant = await seedTenant(inject('databaseUrl'), 'live');
  });
  afterAll(() => stack?.stop());

  it.each(['params', 'header'] as const)('streams creates, updates and deletes with their project (auth by %s)', async (via) => {
    const client = wsClient(stack.wsUrl, tenant.personal_api_key, via);
    const events = collect(client, CHANGES, { p: tenant.environment_id });
    const probes = await untilLive(stack, tenant, events);
    const created = await api(stack.url, 'POST', configs(tenant), { key: tenant.personal_api_key, body: { scope: 'person', content: { via } } });
    await api(stack.url, 'PATCH', `${configs(tenant)}${created.body.id}/`, { key: tenant.personal_api_key, body: { scope: 'group_0' } });
    await api(stack.url, 'DELETE', `${configs(tenant)}${created.body.id}/`, { key: tenant.personal_api_key });
    const received = (await events.next(probes + 3)).slice(probes).map((result) => result.data.customer_profile_config_changed);
    expect(received.map((event) => event.action)).toEqual(['created', 'updated', 'deleted']);
    expect(received[0].config).toEqual({ id: created.body.id, scope: 'person', content: { via }, project: { id: tenant.project_id, name: 'Default project' } });
    expect(received[1].config.scope).toBe('group_0');
    expect(received[2]).toMatchObject({ id: created.body.id, config: null });
    expect(received[1].sequence).toBe(received[0].sequence + 1);
    expect(received[2].sequence).toBe(received[1].sequence + 1);
    events.dispose();
    await client.dispose();
  });

  /**
   * A subscription of a key with the read scope alone, then `change` made to that key by the
   * tenant's `*` key: the next event must not reach it, and the connection closes with `code`.
   */
  async function closedAfter(change: (id: string) => Promise<void>, secret: string, code: number): Promise<void> {
    const created = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: tenant.personal_api_key, body: { label: secret, scopes: ['customer_profile_config:read'] } });
    const client = wsClient(stack.wsUrl, created.body.value);
    const events = collect(client, CHANGES, { p: tenant.environment_id });
    const probes = await untilLive(stack, tenant, events);
    await change(created.body.id);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await api(stack.url, 'POST', configs(tenant), { key: tenant.personal_api_key, body: { scope: 'person', content: { secret } } });
    await events.ended();
    expect(JSON.stringify(events.results.slice(probes))).not.toContain(secret);
    expect((events.failure as { code?: number }).code).toBe(code);
    await client.dispose();
  }

  it('closes a subscription whose key is revoked, before the next event', async () => {
    const revoke = async (id: string) => {
      await api(stack.url, 'DELETE', `/api/personal_api_keys/${id}/`, { key: tenant.personal_api_key });
    };
    await closedAfter(revoke, 'after revocation', 4401);
  });

  it('closes a subscription whose key loses its scope, before the next event (4403)', async () => {
    const narrow = async (id: string) => {
      const narrowed = await api(stack.url, 'PATCH', `/api/personal_api_keys/${id}/`, { key: tenant.personal_api_key, body: { scopes: ['project:read'] } });
      expect(narrowed.status).toBe(200);
    };
    await closedAfter(narrow, 'after narrowing', 4403);
  });

  it.each([
    ['a syntax error', 'subscription {', undefined],
    ['an operation name the document lacks', 'query A { __typename }', 'B'],
  ])('answers %s over graphql-ws as a 400, as over HTTP', async (_case, query, operationName) => {
    const client = wsClient(stack.wsUrl, tenant.personal_api_key);
    const errors = await new Promise<readonly { extensions?: Record<string, unknown> }[]>((resolve) => {
      client.subscribe({ query, operationName }, { next: (value) => resolve(value.errors ?? []), error: (failure) => resolve(failure as never), complete: () => undefined });
    });
    expect(errors[0]?.extensions).toMatchObject({ code: 'invalid_input', type: 'validation_error', status: 400 });
    await client.dispose();
  });

  it('keeps resolving other subgraphs\' fields after the first actor header has expired', async () => {
    const client = wsClient(stack.wsUrl, tenant.personal_api_key);
    const events = collect(client, CHANGES, { p: tenant.environment_id });
    const probes = await untilLive(stack, tenant, events);
    await new Promise((resolve) => setTimeout(resolve, (ACTOR_TTL_SECONDS + 2) * 1000));
    await api(stack.url, 'POST', configs(tenant), { key: tenant.personal_api_key, body: { scope: 'person', content: { late: true } } });
    const late = (await events.next(probes + 1))[probes]!;
    expect(late.errors).toBeUndefined();
    expect(late.data.customer_profile_config_changed.config.project).toEqual({ id: tenant.project_id, name: 'Default project' });
    events.dispose();
    await client.dispose();
  }, (ACTOR_TTL_SECONDS + 30) * 1000);

  it('closes the connection for an unknown key', async () => {
    const client = wsClient(stack.wsUrl, 'phx_unknownKey000000000000000000');
    const events = collect(client, CHANGES, { p: tenant.environment_id });
    await events.ended();
    expect(String((events.failure as { code?: number })?.code ?? events.failure)).toMatch(/4401|Unauthorized/);
    await client.dispose();
  });

  it('refuses a key without the read scope, and another tenant', async () => {
    const weak = await createKey(stack.url, tenant.personal_api_key, ['project:read']);
    const weakClient = wsClient(stack.wsUrl, weak);
    const denied = collect(weakClient, CHANGES, { p: tenant.environment_id });
    await denied.ended().catch(() => undefined);
    const firstError = denied.results[0]?.errors?.[0] ?? (denied.failure as any)?.[0];
    expect(firstError?.message).toBe("API key missing required scope 'customer_profile_config:read'");
    await weakClient.dispose();

    const other = await seedTenant(inject('databaseUrl'), 'other');
    const otherClient = wsClient(stack.wsUrl, other.personal_api_key);
    const foreign = collect(otherClient, CHANGES, { p: tenant.environment_id });
    await foreign.ended().catch(() => undefined);
    const foreignError = foreign.results[0]?.errors?.[0] ?? (foreign.failure as any)?.[0];
    expect(foreignError?.message).toBe("You don't have access to the project.");
    await otherClient.dispose();
  });
});

describe('subscriptions through the router, Redis pub/sub across processes', () => {
  let stack: Stack;
  let tenant: Tenant;
  let publisher: ChildProcess | undefined;
  const prefix = `test-cross-${process.pid}-${Date.now()}:`;

  beforeAll(async () => {
    stack = await startStack({ databaseUrl: inject('databaseUrl'), redisUrl: inject('redisUrl'), redisPrefix: prefix });
    tenant = await seedTenant(inject('databaseUrl'), 'redis');
  });
  afterAll(async () => {
    publisher?.kill('SIGTERM');
    await stack?.stop();
  });

  it('delivers an event that a separate subgraph process published through Redis', async () => {
    const client = wsClient(stack.wsUrl, tenant.personal_api_key);
    const events = collect(client, CHANGES, { p: tenant.environment_id });
    // The stack's own subgraph publishes through Redis too: once its probes arrive, the
    // subscription listens on Redis.
    const probes = await untilLive(stack, tenant, events);

    // A second customer-profiles subgraph, in its own process, sharing only PostgreSQL and Redis.
    publisher = spawn(process.execPath, [`${BUILD_DIR}/router/process/cli/subgraph.cli.js`, 'customer-profiles'], {
      env: {
        ...process.env,
        DATABASE_URL: inject('databaseUrl'),
        REDIS_URL: inject('redisUrl'),
        REDIS_CHANNEL_PREFIX: prefix,
        SECRET_KEY: TEST_SECRET_KEY,
        SUBGRAPH_PORT: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      publisher!.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
      publisher!.once('exit', (code) => reject(new Error(`subgraph process exited with ${code}`)));
    });
    expect(publisher.pid).not.toBe(process.pid);

    const signer = new ActorSigner(TEST_SECRET_KEY);
    const actor = await new Authenticator(signer, { accounts: stack.subgraphs.urls.accounts!, projects: stack.subgraphs.urls.projects! }).actorFor(
      `Bearer ${tenant.personal_api_key}`,
    );
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [ACTOR_HEADER]: signer.sign(actor) },
      body: JSON.stringify({
        query: 'mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: group_3, content: {from: "elsewhere"}) { id } }',
        variables: { p: tenant.environment_id },
      }),
    }).then((r) => r.json());
    const id = response.data.create_customer_profile_config.id;

    const event = (await events.next(probes + 1))[probes];
    expect(event!.data.customer_profile_config_changed).toMatchObject({
      action: 'created',
      id,
      config: { id, scope: 'group_3', content: { from: 'elsewhere' }, project: { id: tenant.project_id, name: 'Default project' } },
    });
    events.dispose();
    await client.dispose();
  });

  it('a subgraph refuses a request without, or with a forged, actor header', async () => {
    const url = stack.subgraphs.urls['customer-profiles']!;
    const body = JSON.stringify({ query: '{ __typename }' });
    const missing = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(missing.status).toBe(401);
    const forged = new ActorSigner('another-secret-key-0123456789abcdef-xyz').sign({ kind: 'service', scopes: ['INTERNAL'], organizations: {} });
    const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', [ACTOR_HEADER]: forged }, body });
    expect(refused.status).toBe(401);
    const stale = new ActorSigner(TEST_SECRET_KEY).sign({ kind: 'service', scopes: ['INTERNAL'], organizations: {} }, Date.now() - 120_000);
    expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', [ACTOR_HEADER]: stale }, body })).status).toBe(401);
  });
});
