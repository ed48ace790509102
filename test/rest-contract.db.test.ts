import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api, gql } from './kit/http.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let tenant: Tenant;
const base = () => `/api/environments/${tenant.environment_id}/customer_profile_configs`;
const call = (method: string, path: string, body?: unknown) => api(stack.url, method, path, { key: tenant.personal_api_key, body });

const ERROR_KEYS = ['attr', 'code', 'detail', 'type'];

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  tenant = await seedTenant(inject('databaseUrl'), 'rest');
});
afterAll(() => stack?.stop());

describe('REST contract: customer profile configs', () => {
  it('creates with 201 and returns the record in PostHog shape', async () => {
    const created = await call('POST', `${base()}/`, { scope: 'group_2', content: { blocks: [1, 2] }, sidebar: [{ a: true }] });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['content', 'created_at', 'id', 'scope', 'sidebar', 'updated_at']);
    expect(created.body).toMatchObject({ scope: 'group_2', content: { blocks: [1, 2] }, sidebar: [{ a: true }] });
    expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('stores null or absent content and sidebar as {}', async () => {
    const created = await call('POST', `${base()}/`, { scope: 'person', content: null });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ content: {}, sidebar: {} });
  });

  it('answers the same with and without the trailing slash', async () => {
    const withSlash = await call('GET', `${base()}/`);
    const without = await call('GET', base());
    expect(withSlash.status).toBe(200);
    expect(without.status).toBe(200);
    expect(without.body.count).toBe(withSlash.body.count);
  });

  it('gets, patches and deletes one config', async () => {
    const { body: created } = await call('POST', base(), { scope: 'person', content: { v: 1 } });
    const got = await call('GET', `${base()}/${created.id}/`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created);

    const patched = await call('PATCH', `${base()}/${created.id}/`, { sidebar: { open: true } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.id, scope: 'person', content: { v: 1 }, sidebar: { open: true } });
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));

    const cleared = await call('PATCH', `${base()}/${created.id}/`, { content: null });
    expect(cleared.body).toMatchObject({ content: {}, sidebar: { open: true } });

    const deleted = await call('DELETE', `${base()}/${created.id}/`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await call('GET', `${base()}/${created.id}/`)).status).toBe(404);
  });

  it('lists newest first with count, absolute next and previous links', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'paging');
    const path = `/api/environments/${own.environment_id}/customer_profile_configs/`;
    for (let i = 0; i < 5; i++) {
      await api(stack.url, 'POST', path, { key: own.personal_api_key, body: { scope: 'person', content: { i } } });
    }
    const first = await api(stack.url, 'GET', `${path}?limit=2`, { key: own.personal_api_key });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['count', 'next', 'previous', 'results']);
    expect(first.body.count).toBe(5);
    expect(first.body.results.map((r: any) => r.content.i)).toEqual([4, 3]);
    expect(first.body.previous).toBeNull();
    expect(first.body.next).toBe(`${stack.url}${path}?limit=2&offset=2`);

    const second = await fetch(first.body.next, { headers: { authorization: `Bearer ${own.personal_api_key}` } }).then((r) => r.json());
    expect(second.results.map((r: any) => r.content.i)).toEqual([2, 1]);
    expect(second.previous).toBe(`${stack.url}${path}?limit=2`);

    const last = await api(stack.url, 'GET', `${path}?limit=2&offset=4`, { key: own.personal_api_key });
    expect(last.body.next).toBeNull();
    expect(last.body.results).toHaveLength(1);
    expect(last.body.count).toBe(5);

    // The count of a page that ends the list comes from the page; of a full one, or one past the end, from a count.
    for (const [query, rows] of [['limit=10', 5], ['limit=5', 5], ['limit=4&offset=1', 4], ['limit=3&offset=3', 2], ['limit=2&offset=5', 0], ['limit=2&offset=50', 0]] as const) {
      const page = await api(stack.url, 'GET', `${path}?${query}`, { key: own.personal_api_key });
      expect([page.body.count, page.body.results.length], query).toEqual([5, rows]);
    }
  });

  it('falls back to the default page for an invalid limit or offset, as DRF does', async () => {
    const response = await call('GET', `${base()}/?limit=abc&offset=-3`);
    expect(response.status).toBe(200);
    expect(response.body.results.length).toBe(Math.min(response.body.count, 100));
  });

  describe('errors', () => {
    it('answers 400 with attr for a bad scope value', async () => {
      const response = await call('POST', base(), { scope: 'planet' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ type: 'validation_error', code: 'invalid_choice', detail: '"planet" is not a valid choice.', attr: 'scope' });
    });

    it('answers 400 null when scope is sent as null', async () => {
      const response = await call('POST', base(), { scope: null });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ type: 'validation_error', code: 'null', detail: 'This field may not be null.', attr: 'scope' });
    });

    it('answers 400 required when scope is missing', async () => {
      const response = await call('POST', base(), { content: {} });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'scope' });
    });

    it('answers 400 for content that is not an object or array', async () => {
      const response = await call('POST', base(), { scope: 'person', content: 'text' });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ type: 'validation_error', attr: 'content', detail: "Invalid value for field 'content'" });
    });

    it('answers 400 parse_error for malformed JSON and changes nothing', async () => {
      const before = (await call('GET', base())).body.count;
      const response = await api(stack.url, 'POST', base(), { key: tenant.personal_api_key, body: '{"scope": "person",' });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ type: 'invalid_request', code: 'parse_error', attr: null });
      expect((await call('GET', base())).body.count).toBe(before);
    });

    it('answers 400 for a JSON body that is not an object', async () => {
      const response = await call('POST', base(), [1, 2]);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body).sort()).toEqual(ERROR_KEYS);
    });

    it('answers 404 for an unknown config, a non-UUID id and an unknown path', async () => {
      for (const path of [`${base()}/00000000-0000-4000-8000-000000000000/`, `${base()}/not-a-uuid/`, '/api/nothing/here/', `/api/environments/abc/customer_profile_configs/`]) {
        const response = await call('GET', path);
        expect(response.status, path).toBe(404);
        expect(response.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
      }
    });

    it('answers 405 for a method the path does not have', async () => {
      const response = await call('PUT', `${base()}/`, {});
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
      expect(response.body).toEqual({ type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "PUT" not allowed.', attr: null });
    });

    it('checks the scope before the body, as DRF checks permissions before parsing: 403 whatever the body holds, over REST and GraphQL', async () => {
      const reader = await createKey(stack.url, tenant.personal_api_key, ['project:read']);
      for (const body of [{}, { scope: 'nope' }]) {
        const refused = await api(stack.url, 'POST', `${base()}/`, { key: reader, body });
        expect(refused.status, JSON.stringify(body)).toBe(403);
        expect(refused.body).toMatchObject({ code: 'permission_denied', detail: "API key missing required scope 'customer_profile_config:write'" });
      }
      const projects = await api(stack.url, 'POST', `/api/organizations/${tenant.organization_id}/projects/`, { key: await createKey(stack.url, tenant.personal_api_key, ['user:read']), body: {} });
      expect(projects.status).toBe(403);
      const graph = await gql(stack.graphqlUrl, 'mutation ($p: Int!, $s: CustomerProfileScope!) { create_customer_profile_config(project_id: $p, scope: $s) { id } }', { p: tenant.environment_id }, reader);
      expect(graph.status).toBe(403);
      expect(graph.errors?.[0]?.extensions).toMatchObject({ code: 'permission_denied' });
      const anonymous = await api(stack.url, 'POST', `${base()}/`, { body: {} });
      expect(anonymous.status).toBe(401);
    });

    it("refuses a key before a body it cannot use, as DRF authenticates and checks permissions before it parses: the key's 401 or 403, then the 400", async () => {
      const reader = await createKey(stack.url, tenant.personal_api_key, ['project:read']);
      const before = (await call('GET', base())).body.count;
      const unusable = ['{"scope": "person",', '[{"scope": "person"}]', `[${'['.repeat(200)}${']'.repeat(200)}]`];
      for (const body of unusable) {
        const scopeless = await api(stack.url, 'POST', `${base()}/`, { key: reader, body });
        expect([scopeless.status, scopeless.body.code], body).toEqual([403, 'permission_denied']);
        const unknown = await api(stack.url, 'POST', `${base()}/`, { key: 'phx_unknown', body });
        expect(unknown.body, body).toEqual({ type: 'authentication_error', code: 'authentication_failed', detail: 'Personal API key found in request Authorization header is invalid.', attr: null });
        const inQuery = await api(stack.url, 'POST', `${base()}/?personal_api_key=phx_unknown`, { body });
        expect([inQuery.status, inQuery.body.detail], body).toEqual([401, 'Personal API key found in request query string is invalid.']);
        const allowed = await api(stack.url, 'POST', `${base()}/`, { key: tenant.personal_api_key, body });
        expect(allowed.status, body).toBe(400);
      }
      // With no key in the header or the query string, DRF parses the body for one: JSON that is no
      // object holds none (401), a body that is no JSON fails that parse (400).
      const malformed = await api(stack.url, 'POST', `${base()}/`, { body: unusable[0] });
      expect([malformed.status, malformed.body.code]).toEqual([400, 'parse_error']);
      const list = await api(stack.url, 'POST', `${base()}/`, { body: unusable[1] });
      expect([list.status, list.body.code]).toEqual([401, 'not_authenticated']);
      const notUtf8 = await fetch(`${stack.url}${base()}/`, { method: 'POST', headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' }, body: new Uint8Array([0x7b, 0xff, 0x7d]) });
      expect(notUtf8.status).toBe(403);
      expect((await call('GET', base())).body.count).toBe(before);
    });

    it('answers HEAD as GET without a body, and OPTIONS with the methods, as Django and DRF do', async () => {
      const head = await fetch(`${stack.url}${base()}/`, { method: 'HEAD', headers: { authorization: `Bearer ${tenant.personal_api_key}` } });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toMatch(/application\/json/);
      expect(await head.text()).toBe('');
      expect((await fetch(`${stack.url}${base()}/`, { method: 'HEAD' })).status).toBe(401);
      const options = await call('OPTIONS', `${base()}/`);
      expect(options.status).toBe(200);
      expect(options.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
      expect(options.body).toMatchObject({ renders: ['application/json'], parses: ['application/json'] });
      expect(typeof options.body.name).toBe('string');
      expect((await call('OPTIONS', '/api/nope/')).status).toBe(404);
    });

    it('answers 413 for a body over the limit', async () => {
      const response = await call('POST', base(), { scope: 'person', content: { big: 'x'.repeat(1_100_000) } });
      expect(response.status).toBe(413);
      expect(Object.keys(response.body).sort()).toEqual(ERROR_KEYS);
    });

    it('never exposes SOFA\'s webhook routes', async () => {
      for (const method of ['POST', 'DELETE']) {
        const response = await api(stack.url, method, '/api/webhook', { body: { subscription: 'x' } });
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('not_found');
      }
    });
  });

  it('serves the OpenAPI document and its browsable reference', async () => {
    const schema = await api(stack.url, 'GET', '/api/schema/');
    expect(schema.status).toBe(200);
    expect(schema.body.openapi).toMatch(/^3\./);
    expect(Object.keys(schema.body.paths)).toContain('/api/environments/{project_id}/customer_profile_configs/');
    expect(Object.keys(schema.body.paths)).toEqual(expect.arrayContaining(['/batch/', '/api/environments/{project_id}/events/', '/api/projects/{project_id}/persons/{id}/']));
    expect(schema.body.paths['/batch/'].post.security).toEqual([]);
    expect(Object.keys(schema.body.paths).some((path) => path.includes('webhook'))).toBe(false);
    const docs = await fetch(`${stack.url}/api/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui-bundle.js');
    expect((await fetch(`${stack.url}/api/docs/swagger-ui-bundle.js`)).status).toBe(200);
  });
});

describe('odd requests', () => {
  it('answer 4xx, never 5xx: malformed percent-encoding, a bad Host header, huge ids', async () => {
    const { request } = await import('node:http');
    const raw = (path: string, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(stack.url);
        const req = request({ host: url.hostname, port: url.port, path, headers: { authorization: `Bearer ${tenant.personal_api_key}`, ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await raw('/api/personal_api_keys/%E0%A4%A/', {})).toBeLessThan(500);
    expect(await raw(`/api/environments/${tenant.environment_id}/customer_profile_configs/`, { host: 'a b' })).toBe(200);
    expect(await raw('/graphql?query=%7B__typename%7D', { host: '[::1' })).toBe(200);
    expect(await raw('/api/environments/99999999999/customer_profile_configs/', {})).toBe(404);
  });
});
