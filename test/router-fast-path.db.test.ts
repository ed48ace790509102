import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { routerExecutor } from '../rest-compat/executors.js';
import type { RouterExecutor } from '../rest-compat/router.ports.js';
import { Authenticator } from '../router/auth.js';
import { createGateway, loadSupergraph } from '../router/gateway.js';
import { restFastPath } from '../router/process/platform.server.js';
import { ActorSigner } from '../subgraphs/shared/auth/actor.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { requestsTotal } from '../subgraphs/shared/metrics.js';
import type { DirectAnswer, FastPost } from '../router/post.fast-path.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

/**
 * The router answers plain GraphQL POSTs without Yoga's HTTP pipeline (router/post.fast-path.ts).
 * Each request here goes down both ways: to the fast path as the listener hands it over, and over
 * HTTP to `/graphql?via=yoga` (a query string, which the fast path leaves to Yoga). The two answers
 * must be the same: status, content type, Retry-After, request id and body.
 */
let stack: Stack;
let tenant: Tenant;
let fast: FastPost;
let readOnlyKey: string;
let intruder: Tenant;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  tenant = await seedTenant(inject('databaseUrl'), 'fast-path');
  readOnlyKey = await createKey(stack.url, tenant.personal_api_key, ['project:read']);
  intruder = await seedTenant(inject('databaseUrl'), 'fast-path-intruder');
  fast = stack.gateway.fastPost;
});
afterAll(() => stack?.stop());

interface Answer {
  status: number;
  type: string | null;
  retryAfter: string | null;
  requestId: string | null;
  body: unknown;
}

function headersOf(key: string | undefined, extra: Record<string, string>): Record<string, string> {
  return { 'content-type': 'application/json', accept: '*/*', ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
}

/** What the fast path answers, as the listener would write it; undefined when it leaves the request to Yoga. */
async function direct(body: string, headers: Record<string, string>, url = '/graphql'): Promise<Answer | undefined> {
  // A copy, as Node gives each request its own: the WHATWG Request made of it adds a content-length.
  const answer: DirectAnswer | undefined = await fast({ method: 'POST', url, headers: { ...headers } } as unknown as IncomingMessage, Buffer.from(body));
  if (!answer) return undefined;
  return {
    status: answer.status,
    type: answer.headers['content-type'] ?? null,
    retryAfter: answer.headers['retry-after'] ?? null,
    requestId: answer.headers['x-request-id'] ?? null,
    body: JSON.parse(answer.payload),
  };
}

async function overHttp(body: string, headers: Record<string, string>, query = '?via=yoga'): Promise<Answer> {
  const response = await fetch(`${stack.graphqlUrl}${query}`, { method: 'POST', headers, body });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    retryAfter: response.headers.get('retry-after'),
    requestId: response.headers.get('x-request-id'),
    body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
  };
}

/** Both ways, request ids aside (each answer gets its own unless the caller sent one). */
async function bothWays(body: string, headers: Record<string, string>): Promise<{ fast: Answer | undefined; yoga: Answer }> {
  return { fast: await direct(body, headers), yoga: await overHttp(body, headers) };
}

function withoutRequestId(answer: Answer | undefined): Omit<Answer, 'requestId'> | undefined {
  if (!answer) return undefined;
  const { requestId, ...rest } = answer;
  expect(requestId).toMatch(UUID);
  return rest;
}

const operation = (query: string, variables?: Record<string, unknown>, operationName?: string) => JSON.stringify({ query, variables, operationName });

describe('plain GraphQL POSTs answered without Yoga', () => {
  it.each([
    ['a query', () => operation('{ me { email } }'), () => tenant.personal_api_key, 200],
    [
      'a query with variables across two subgraphs',
      () => operation('query ($p: Int!) { project(id: $p) { id name } customer_profile_configs(project_id: $p) { count results { id project { name } } } }', { p: tenant.environment_id }),
      () => tenant.personal_api_key,
      200,
    ],
    ['a query chosen by operationName', () => operation('query A { me { email } } query B { me { id } }', undefined, 'B'), () => tenant.personal_api_key, 200],
    ['no key: refused with 401 and no data', () => operation('{ me { email } }'), () => undefined, 401],
    ['an unknown key: 401', () => operation('{ me { email } }'), () => 'phx_unknown', 401],
    ['a key that is not a personal API key: 401', () => operation('{ me { email } }'), () => 'not-a-key', 401],
    ['a key without the scope: 403', () => operation('query ($p: Int!) { customer_profile_configs(project_id: $p) { count } }', { p: tenant.environment_id }), () => readOnlyKey, 403],
    [
      'two root fields, one of them refused',
      () => operation('query ($p: Int!) { project(id: $p) { name } customer_profile_configs(project_id: $p) { count } }', { p: tenant.environment_id }),
      () => readOnlyKey,
      403,
    ],
    ['variables of the wrong type', () => operation('query ($p: Int!) { project(id: $p) { id } }', { p: 'seven' }), () => tenant.personal_api_key, 400],
    ['an object that does not exist: 404', () => operation('{ user(uuid: "00000000-0000-4000-8000-000000000000") { id } }'), () => tenant.personal_api_key, 404],
    [
      'a mutation refused by its service: 400 and nothing written',
      () => operation('mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: person, content: 5) { id } }', { p: tenant.environment_id }),
      () => tenant.personal_api_key,
      400,
    ],
  ])('%s', async (_name, body, key, status) => {
    const headers = headersOf(key(), {});
    const { fast: answer, yoga } = await bothWays(body(), headers);
    expect(answer, 'the fast path took it').toBeDefined();
    expect(withoutRequestId(answer)).toEqual(withoutRequestId(yoga));
    expect(yoga.status).toBe(status);
  });

  it("refuses another organization's key both ways, reading and writing, and writes nothing", async () => {
    const count = async () => (await direct(operation('query ($p: Int!) { customer_profile_configs(project_id: $p) { count } }', { p: tenant.environment_id }), headersOf(tenant.personal_api_key, {})))!.body;
    const before = await count();
    for (const body of [
      operation('query ($p: Int!) { customer_profile_configs(project_id: $p) { count results { id } } }', { p: tenant.environment_id }),
      operation('query ($p: Int!) { project(id: $p) { name } }', { p: tenant.project_id }),
      operation('mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: person) { id } }', { p: tenant.environment_id }),
    ]) {
      const { fast: answer, yoga } = await bothWays(body, headersOf(intruder.personal_api_key, {}));
      expect(answer, 'the fast path took it').toBeDefined();
      expect(withoutRequestId(answer)).toEqual(withoutRequestId(yoga));
      expect(yoga.status).toBeGreaterThanOrEqual(403);
      expect(yoga.status).toBeLessThanOrEqual(404);
      expect((yoga.body as { data?: unknown }).data ?? null).toBeNull();
    }
    expect(await count()).toEqual(before);
  });

  it('writes what a mutation made, as Yoga does, and keeps the caller\'s request id', async () => {
    const body = operation('mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: person, content: {blocks: []}) { scope content sidebar } }', {
      p: tenant.environment_id,
    });
    const headers = headersOf(tenant.personal_api_key, { 'x-request-id': 'caller-chosen-id' });
    const { fast: answer, yoga } = await bothWays(body, headers);
    expect(answer).toEqual(yoga);
    expect(answer).toMatchObject({ status: 200, requestId: 'caller-chosen-id', body: { data: { create_customer_profile_config: { scope: 'person', content: { blocks: [] }, sidebar: {} } } } });
  });

  it('gives a request sent with an empty request id a new one, as Yoga does', async () => {
    const { fast: answer, yoga } = await bothWays(operation('{ me { email } }'), headersOf(tenant.personal_api_key, { 'x-request-id': '' }));
    expect(withoutRequestId(answer)).toEqual(withoutRequestId(yoga));
  });

  it('counts a request as Yoga does: by its operation once it runs, `unknown` when refused before (401)', async () => {
    const counted = async () => {
      const { values } = await requestsTotal.get();
      return Object.fromEntries(values.filter(({ labels }) => labels.transport === 'graphql').map(({ labels, value }) => [`${labels.operation} ${labels.status}`, value]));
    };
    const added = (before: Record<string, number>, after: Record<string, number>) =>
      Object.fromEntries(Object.entries(after).filter(([series, value]) => value !== (before[series] ?? 0)).map(([series, value]) => [series, value - (before[series] ?? 0)]));
    for (const [key, expected] of [
      [undefined, { 'unknown 401': 1 }],
      [tenant.personal_api_key, { 'query me 200': 1 }],
    ] as const) {
      const body = operation('{ me { email } }');
      const before = await counted();
      await direct(body, headersOf(key, {}));
      const afterFast = await counted();
      await overHttp(body, headersOf(key, {}));
      expect(added(before, afterFast)).toEqual(expected);
      expect(added(afterFast, await counted())).toEqual(expected);
    }
  });

  it.each([
    ['a syntax error', operation('{ me { email }'), {}],
    ['a validation error', operation('{ me { nope } }'), {}],
    ['an operation name the document lacks', operation('query A { me { email } }', undefined, 'B'), {}],
    ['a subscription', operation('subscription { conversation_stream(conversation: "00000000-0000-4000-8000-000000000000") { __typename } }'), { accept: 'application/json' }],
    ['extensions', JSON.stringify({ query: '{ me { email } }', extensions: { persistedQuery: { version: 1 } } }), {}],
    ['a batch', JSON.stringify([{ query: '{ me { email } }' }]), {}],
    ['variables that are not an object', JSON.stringify({ query: '{ me { email } }', variables: [1] }), {}],
    ['variables nested too deep', operation('{ me { email } }', { v: JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`) as unknown }), {}],
    ['not JSON', '{"query": ', {}],
    ['an Origin (CORS headers)', operation('{ me { email } }'), { origin: 'http://example.com' }],
    ['an Accept of application/graphql-response+json', operation('{ me { email } }'), { accept: 'application/graphql-response+json' }],
    ['a body of another type', operation('{ me { email } }'), { 'content-type': 'application/graphql+json' }],
  ])('leaves %s to Yoga, which answers it as before', async (_name, body, extra) => {
    const headers = headersOf(tenant.personal_api_key, extra);
    expect(await direct(body, headers)).toBeUndefined();
    const listener = await overHttp(body, headers, '');
    const yoga = await overHttp(body, headers);
    expect({ ...listener, requestId: null }).toEqual({ ...yoga, requestId: null });
  });

  it('leaves a request with a query string to Yoga', async () => {
    expect(await direct(operation('{ me { email } }'), headersOf(tenant.personal_api_key, {}), '/graphql?x=1')).toBeUndefined();
  });
});

/**
 * The REST layer's operations in the same process run the same way (restFastPath): each goes
 * down both ways, through the fast path and through the router's `fetch` (Yoga), and the two
 * results must be the same objects, errors as the REST layer reads them.
 */
describe("the REST layer's operations answered without Yoga", () => {
  const viaYoga = (): RouterExecutor => routerExecutor(async (request) => stack.gateway.runtime.fetch(request), 'http://router/graphql', {});
  const fastPath = () => restFastPath(stack.gateway.direct);
  const viaFastPath = (): RouterExecutor => routerExecutor(async () => Promise.reject(new Error('left to Yoga')), 'http://router/graphql', { direct: fastPath() });
  const call = (query: string, variables: Record<string, unknown>, key: string | undefined) => ({ query, variables, authorization: key ? `Bearer ${key}` : null });
  // The REST layer's requests are POSTs (Yoga refuses a mutation of any other method), made with these headers.
  const direct = (operation: ReturnType<typeof call>) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(operation.authorization ? { authorization: operation.authorization } : {}) };
    return fastPath()(operation, new Request('http://router/graphql', { method: 'POST', headers }), headers);
  };
  const configs = 'query ($p: Int!) { customer_profile_configs(project_id: $p) { count results { id project { name } } } }';

  it.each([
    ['a query across two subgraphs', () => call(configs, { p: tenant.environment_id }, tenant.personal_api_key)],
    ['no key', () => call('{ me { email } }', {}, undefined)],
    ['an unknown key', () => call('{ me { email } }', {}, 'phx_unknown')],
    ['a key without the scope', () => call(configs, { p: tenant.environment_id }, readOnlyKey)],
    ["another organization's key", () => call(configs, { p: tenant.environment_id }, intruder.personal_api_key)],
    ['variables of the wrong type', () => call('query ($p: Int!) { project(id: $p) { id } }', { p: 'seven' }, tenant.personal_api_key)],
    ['an object that does not exist', () => call('{ user(uuid: "00000000-0000-4000-8000-000000000000") { id } }', {}, tenant.personal_api_key)],
    [
      'a mutation refused by its service',
      () => call('mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: person, content: 5) { id } }', { p: tenant.environment_id }, tenant.personal_api_key),
    ],
  ])('%s', async (_name, operation) => {
    const taken = await direct(operation());
    expect(taken, 'the fast path took it').toBeDefined();
    expect(await viaFastPath()(operation())).toEqual(await viaYoga()(operation()));
  });

  it('writes what a mutation made, as Yoga does', async () => {
    const operation = call('mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: group_0, content: {blocks: []}) { scope content sidebar } }', { p: tenant.environment_id }, tenant.personal_api_key);
    const fast = await viaFastPath()(operation);
    expect(fast).toEqual({ data: { create_customer_profile_config: { scope: 'group_0', content: { blocks: [] }, sidebar: {} } } });
    expect(await viaYoga()(operation)).toEqual(fast);
  });

  it.each([
    ['variables nested too deep', () => call('{ me { email } }', { v: JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`) as unknown }, tenant.personal_api_key)],
    ['a subscription', () => call('subscription { conversation_stream(conversation: "00000000-0000-4000-8000-000000000000") { __typename } }', {}, tenant.personal_api_key)],
    ['a validation error', () => call('{ me { nope } }', {}, tenant.personal_api_key)],
  ])('leaves %s to Yoga', async (_name, operation) => {
    expect(await direct(operation())).toBeUndefined();
  });
});

/**
 * Over HTTP, `useRequestId` sends each request's id to the subgraphs (`x-request-id`), where a
 * subgraph's own logs or a proxy in front of it can find it; the fast path sends the same. The
 * accounts subgraph is reached here through a proxy that notes the header of each call.
 */
describe('the request id sent to subgraphs over HTTP', () => {
  it('is the caller\'s id, else the one the answer carries, both ways', async () => {
    const seen: (string | undefined)[] = [];
    const target = stack.subgraphs.urls.accounts!;
    const proxy = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push(request.headers['x-request-id'] as string | undefined);
        const headers = Object.fromEntries(['content-type', 'accept', 'x-actor'].flatMap((name) => (request.headers[name] ? [[name, String(request.headers[name])]] : [])));
        void fetch(target, { method: 'POST', headers, body: Buffer.concat(chunks) })
          .then(async (answer) => response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer())))
          .catch(() => response.writeHead(502).end());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const signer = new ActorSigner(stack.config.SECRET_KEY);
    const urls = { ...stack.subgraphs.urls, accounts: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/graphql` };
    const authenticator = new Authenticator(signer, { accounts: target, projects: stack.subgraphs.urls.projects! });
    const remote = createGateway({ supergraph: loadSupergraph(urls), authenticator, signer, log: createLogger('silent', 'test') });
    try {
      const body = operation('{ me { email } }');
      const headers = (id?: string) => headersOf(tenant.personal_api_key, id ? { 'x-request-id': id } : {});
      const yoga = await remote.runtime.fetch(new Request('http://router/graphql', { method: 'POST', headers: headers('through-yoga'), body }));
      expect(yoga.status).toBe(200);
      expect(seen).toEqual(['through-yoga']);

      const fastPost = remote.fastPost;
      const chosen = await fastPost({ method: 'POST', url: '/graphql', headers: headers('through-fast-path') } as unknown as IncomingMessage, Buffer.from(body));
      expect(chosen?.status).toBe(200);
      const made = await fastPost({ method: 'POST', url: '/graphql', headers: headers() } as unknown as IncomingMessage, Buffer.from(body));
      expect(made?.headers['x-request-id']).toMatch(UUID);
      expect(seen).toEqual(['through-yoga', 'through-fast-path', made!.headers['x-request-id']]);
    } finally {
      await Promise.resolve(remote.runtime.dispose());
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
