import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEndpoint, endpointsPath, hogql, ingest } from './kit/endpoints.js';
import { api } from './kit/http.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';
import { collect, wsClient } from './kit/ws.js';

let stack: Stack;
let owner: Tenant;
let stranger: Tenant;
/** Keys of the owner without the scope an operation needs: one for reads, one for writes (`write` implies `read`). */
let projectReader: string;
let endpointReader: string;

const SECRET = 'secret-of-the-owner';
const NO_PROJECT = { type: 'authentication_error', code: 'permission_denied', detail: "You don't have access to the project.", attr: null };
const missingScope = (scope: string) => ({ type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${scope}'`, attr: null });

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  [owner, stranger] = await Promise.all([seedTenant(inject('databaseUrl'), 'endpoints-owner'), seedTenant(inject('databaseUrl'), 'endpoints-stranger')]);
  await ingest(stack, owner, [{ event: SECRET, distinct_id: 'owner-user', timestamp: '2026-01-05T10:00:00Z', properties: { secret: SECRET } }]);
  await createEndpoint(stack, owner, { name: 'secret', description: SECRET, query: hogql('select event, properties.secret from events') });
  projectReader = await createKey(stack.url, owner.personal_api_key, ['project:read']);
  endpointReader = await createKey(stack.url, owner.personal_api_key, ['endpoint:read']);
});
afterAll(() => stack?.stop());

/** Every operation of section 4.5, with the scope it needs and a body that would change something. */
const OPERATIONS: { method: string; rest: string; scope: string; body?: Record<string, unknown> }[] = [
  { method: 'GET', rest: '', scope: 'endpoint:read' },
  { method: 'POST', rest: '', scope: 'endpoint:write', body: { name: 'intruder', query: hogql('select 1') } },
  { method: 'GET', rest: 'secret', scope: 'endpoint:read' },
  { method: 'PATCH', rest: 'secret', scope: 'endpoint:write', body: { description: 'changed', query: hogql('select 2') } },
  { method: 'DELETE', rest: 'secret', scope: 'endpoint:write' },
  { method: 'GET', rest: 'secret/materialization_status', scope: 'endpoint:read' },
  { method: 'GET', rest: 'secret/openapi.json', scope: 'endpoint:read' },
  { method: 'GET', rest: 'secret/run', scope: 'endpoint:read' },
  { method: 'POST', rest: 'secret/run', scope: 'endpoint:read', body: { refresh: 'force' } },
  { method: 'GET', rest: 'secret/versions', scope: 'endpoint:read' },
  { method: 'GET', rest: 'secret/versions/1', scope: 'endpoint:read' },
  { method: 'POST', rest: 'last_execution_times', scope: 'endpoint:read', body: { names: ['secret'] } },
];

/** What the owner sees: the records, versions and what a run answers. */
async function ownerView() {
  const get = (rest: string) => api(stack.url, 'GET', endpointsPath(owner, rest), { key: owner.personal_api_key }).then((response) => response.body);
  const [list, record, versions] = await Promise.all([get(''), get('secret'), get('secret/versions')]);
  return { list, record, versions };
}

describe.each(['environments', 'projects'] as const)('saved endpoints under /api/%s/', (prefix) => {
  it.each(OPERATIONS)("another organization's key reaches nothing: $method $rest", async ({ method, rest, body }) => {
    const before = await ownerView();
    const response = await api(stack.url, method, endpointsPath(owner, rest, prefix), { key: stranger.personal_api_key, body });
    expect(response.status, response.text).toBe(403);
    expect(response.body).toEqual(NO_PROJECT);
    expect(response.text).not.toContain(SECRET);
    expect(await ownerView()).toEqual(before);
  });

  it.each(OPERATIONS)('a key without the scope is refused: $method $rest', async ({ method, rest, scope, body }) => {
    const limited = scope === 'endpoint:read' ? projectReader : endpointReader;
    const before = await ownerView();
    const response = await api(stack.url, method, endpointsPath(owner, rest, prefix), { key: limited, body });
    expect(response.status, response.text).toBe(403);
    expect(response.body).toEqual(missingScope(scope));
    expect(await ownerView()).toEqual(before);
  });

  it.each(OPERATIONS)('no key, or an unknown one, is 401: $method $rest', async ({ method, rest, body }) => {
    for (const key of [undefined, 'phx_thisKeyDoesNotExist0000000000']) {
      const response = await api(stack.url, method, endpointsPath(owner, rest, prefix), { key, body });
      expect(response.status, response.text).toBe(401);
      expect(response.body.type).toBe('authentication_error');
    }
  });
});

describe('the materialization stream', () => {
  const SUBSCRIBE = 'subscription($p: Int!, $n: String!) { endpoint_materialization_status(project_id: $p, name: $n) { name materialization { status } } }';

  it("refuses another organization's key and a key without endpoint:read, and hears nothing of the owner's changes", async () => {
    for (const key of [stranger.personal_api_key, projectReader]) {
      const client = wsClient(stack.wsUrl, key);
      const events = collect(client, SUBSCRIBE, { p: owner.environment_id, n: 'secret' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await api(stack.url, 'PATCH', endpointsPath(owner, 'secret'), { key: owner.personal_api_key, body: { is_materialized: true } });
      await api(stack.url, 'PATCH', endpointsPath(owner, 'secret'), { key: owner.personal_api_key, body: { is_materialized: false } });
      await events.ended().catch(() => undefined);
      const errors = events.results.flatMap((result) => result.errors ?? []);
      expect(events.results.some((result) => result.data?.endpoint_materialization_status)).toBe(false);
      expect(errors.length > 0 || events.failure !== undefined).toBe(true);
      events.dispose();
      await client.dispose();
    }
  });
});

describe("another organization's endpoint of the same name", () => {
  it('is its own: the stranger runs its query over its own events only', async () => {
    await createEndpoint(stack, stranger, { name: 'secret', query: hogql('select count() from events') });
    const response = await api(stack.url, 'POST', endpointsPath(stranger, 'secret/run'), { key: stranger.personal_api_key, body: {} });
    expect(response.status, response.text).toBe(200);
    expect(response.body.results).toEqual([[0]]);
    const times = await api(stack.url, 'POST', endpointsPath(stranger, 'last_execution_times'), { key: stranger.personal_api_key, body: { names: ['secret'] } });
    expect(times.body.query_status.team_id).toBe(stranger.environment_id);
  });

  it('keys with the scopes work', async () => {
    const run = await api(stack.url, 'POST', endpointsPath(owner, 'secret/run'), { key: endpointReader, body: {} });
    expect(run.status, run.text).toBe(200);
    expect(run.body.results).toEqual([[SECRET, SECRET]]);
    const writer = await createKey(stack.url, owner.personal_api_key, ['endpoint:write']);
    const created = await api(stack.url, 'POST', endpointsPath(owner), { key: writer, body: { name: 'by_writer', query: hogql('select 1') } });
    expect(created.status, created.text).toBe(201);
  });
});
