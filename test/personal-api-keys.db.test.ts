import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { api, gql } from './kit/http.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let tenant: Tenant;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  tenant = await seedTenant(inject('databaseUrl'), 'keys');
});
afterAll(() => stack?.stop());

describe('personal API keys', () => {
  it('creates a key shown once, lists it masked, and stores only its hash', async () => {
    const created = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: tenant.personal_api_key, body: { label: 'ci', scopes: ['project:read', 'customer_profile_config:write'] } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'id', 'label', 'last_used_at', 'mask_value', 'scopes', 'value']);
    expect(created.body.value).toMatch(/^phx_[0-9A-Za-z]{27,}$/);
    expect(created.body.mask_value).toBe(`phx_...${created.body.value.slice(-4)}`);
    expect(created.body.last_used_at).toBeNull();

    const listed = await api(stack.url, 'GET', '/api/personal_api_keys/', { key: tenant.personal_api_key });
    expect(Array.isArray(listed.body)).toBe(true);
    const entry = listed.body.find((key: { id: string }) => key.id === created.body.id);
    expect(Object.keys(entry).sort()).toEqual(['created_at', 'id', 'label', 'last_used_at', 'mask_value', 'scopes']);
    expect(entry.mask_value).toBe(created.body.mask_value);
    expect((await api(stack.url, 'GET', `/api/personal_api_keys/${created.body.id}/`, { key: tenant.personal_api_key })).body).not.toHaveProperty('value');

    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    const { rows } = await client.query('select * from accounts.personal_api_keys where id = $1', [created.body.id]);
    await client.end();
    expect(JSON.stringify(rows)).not.toContain(created.body.value);
    expect(rows[0].secure_value).toMatch(/^sha256\$[0-9a-f]{64}$/);
  });

  it('records last use, at most once a minute', async () => {
    const value = await createKey(stack.url, tenant.personal_api_key, ['user:read']);
    expect((await gql(stack.graphqlUrl, '{ me { id } }', {}, value)).errors).toBeUndefined();
    const keys = await api(stack.url, 'GET', '/api/personal_api_keys/', { key: tenant.personal_api_key });
    const used = keys.body.find((key: { mask_value: string }) => key.mask_value.endsWith(value.slice(-4)));
    expect(Date.now() - Date.parse(used.last_used_at)).toBeLessThan(60_000);
  });

  it('validates label and scopes, with attr', async () => {
    const cases: [unknown, string, string][] = [
      [{ label: '', scopes: ['*'] }, 'label', 'blank'],
      [{ label: 'x'.repeat(41), scopes: ['*'] }, 'label', 'max_length'],
      [{ label: 'ok', scopes: ['project:delete'] }, 'scopes', 'invalid_input'],
      [{ label: 'ok', scopes: [] }, 'scopes', 'empty'],
      [{ scopes: ['*'] }, 'label', 'required'],
    ];
    for (const [body, attr, code] of cases) {
      const response = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: tenant.personal_api_key, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toMatchObject({ type: 'validation_error', attr, code });
    }
    const invalid = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: tenant.personal_api_key, body: { label: 'ok', scopes: ['project:delete'] } });
    expect(invalid.body.detail).toBe('Invalid scope: project:delete');
  });

  it('needs a key with every scope (*) to manage keys', async () => {
    const limited = await createKey(stack.url, tenant.personal_api_key, ['project:write', 'customer_profile_config:write']);
    const response = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: limited, body: { label: 'escalate', scopes: ['*'] } });
    expect(response.status).toBe(403);
    expect(response.body.detail).toBe("API key missing required scope '*'");
    expect((await api(stack.url, 'GET', '/api/personal_api_keys/', { key: limited })).status).toBe(403);
  });

  it('allows at most 10 keys per user, even under a burst of concurrent creations', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'many');
    const burst = await Promise.all(
      Array.from({ length: 14 }, () => api(stack.url, 'POST', '/api/personal_api_keys/', { key: own.personal_api_key, body: { label: 'burst', scopes: ['project:read'] } })),
    );
    expect(burst.filter((response) => response.status === 201)).toHaveLength(9);
    expect(burst.filter((response) => response.status === 400)).toHaveLength(5);
    expect((await api(stack.url, 'GET', '/api/personal_api_keys/', { key: own.personal_api_key })).body).toHaveLength(10);
    const eleventh = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: own.personal_api_key, body: { label: 'one too many', scopes: ['*'] } });
    expect(eleventh.status).toBe(400);
    expect(eleventh.body.detail).toBe('You can only have 10 personal API keys. Remove an existing key before creating a new one.');
  });

  it('revokes a key at once over REST and GraphQL: the very next request with it is refused', async () => {
    for (const via of ['rest', 'graphql']) {
      const created = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: tenant.personal_api_key, body: { label: via, scopes: ['*'] } });
      const value = created.body.value as string;
      expect((await gql(stack.graphqlUrl, '{ me { id } }', {}, value)).errors).toBeUndefined();
      if (via === 'rest') {
        const deleted = await api(stack.url, 'DELETE', `/api/personal_api_keys/${created.body.id}/`, { key: tenant.personal_api_key });
        expect(deleted.status).toBe(204);
        expect(deleted.text).toBe('');
      } else {
        const deleted = await gql(stack.graphqlUrl, 'mutation ($id: ID!) { delete_personal_api_key(id: $id) }', { id: created.body.id }, tenant.personal_api_key);
        expect(deleted.data.delete_personal_api_key).toBe(true);
      }
      // No wait: the key was used a moment ago, so what the router cached of it must be gone.
      const minted = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: value, body: { label: 'after revocation', scopes: ['*'] } });
      expect(minted.status).toBe(401);
      const after = await gql(stack.graphqlUrl, '{ me { id } }', {}, value);
      expect(after.status).toBe(401);
      expect(after.errors?.[0]?.extensions?.code).toBe('authentication_failed');
    }
  });

  it('reads an Authorization header of another scheme as no key, as PostHog does (401 not_authenticated), and then looks in the query string', async () => {
    const basic = await api(stack.url, 'GET', '/api/users/@me/', { headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' } });
    expect(basic.status).toBe(401);
    expect(basic.body).toMatchObject({ code: 'not_authenticated', detail: 'Authentication credentials were not provided.' });
    const graph = await fetch(stack.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Basic YWxpY2U6c2VjcmV0' }, body: JSON.stringify({ query: '{ me { id } }' }) });
    expect(graph.status).toBe(401);
    expect(((await graph.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('not_authenticated');
    const queried = await api(stack.url, 'GET', `/api/users/@me/?personal_api_key=${tenant.personal_api_key}`, { headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' } });
    expect(queried.status).toBe(200);
  });

  it('applies narrowed scopes and a rolled value at once', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'at-once');
    const created = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: own.personal_api_key, body: { label: 'narrowed', scopes: ['project:read', 'user:read'] } });
    const project = `/api/organizations/${own.organization_id}/projects/${own.project_id}/`;
    expect((await api(stack.url, 'GET', project, { key: created.body.value })).status).toBe(200);
    await api(stack.url, 'PATCH', `/api/personal_api_keys/${created.body.id}/`, { key: own.personal_api_key, body: { scopes: ['user:read'] } });
    expect((await api(stack.url, 'GET', project, { key: created.body.value })).status).toBe(403);
    await api(stack.url, 'POST', `/api/personal_api_keys/${created.body.id}/roll/`, { key: own.personal_api_key });
    expect((await api(stack.url, 'GET', '/api/users/@me/', { key: created.body.value })).status).toBe(401);
  });

  it('works the same over GraphQL', async () => {
    const created = await gql(
      stack.graphqlUrl,
      'mutation { create_personal_api_key(label: "gql", scopes: ["endpoint:read"]) { id value mask_value scopes } }',
      {},
      tenant.personal_api_key,
    );
    expect(created.data.create_personal_api_key.value).toMatch(/^phx_/);
    const listed = await gql(stack.graphqlUrl, '{ personal_api_keys { id mask_value } }', {}, tenant.personal_api_key);
    expect(listed.data.personal_api_keys.map((key: { id: string }) => key.id)).toContain(created.data.create_personal_api_key.id);
    const valueless = await gql(stack.graphqlUrl, '{ personal_api_keys { value } }', {}, tenant.personal_api_key);
    expect(valueless.errors?.[0]?.message).toMatch(/Cannot query field "value"/);
  });
  it('renames a key over REST and GraphQL, with the label rules', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'rename');
    const created = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: own.personal_api_key, body: { label: 'old name', scopes: ['project:read'] } });
    const renamed = await api(stack.url, 'PATCH', `/api/personal_api_keys/${created.body.id}/`, { key: own.personal_api_key, body: { label: 'new name' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: created.body.id, label: 'new name', scopes: ['project:read'], mask_value: created.body.mask_value });
    expect(renamed.body).not.toHaveProperty('value');
    const blank = await api(stack.url, 'PATCH', `/api/personal_api_keys/${created.body.id}/`, { key: own.personal_api_key, body: { label: '  ' } });
    expect(blank.body).toMatchObject({ code: 'blank', attr: 'label' });
    // A null is no "unchanged": DRF refuses it, over REST and GraphQL alike, and nothing changes.
    for (const body of [{ label: null }, { scopes: null, label: 'not kept' }]) {
      const refused = await api(stack.url, 'PATCH', `/api/personal_api_keys/${created.body.id}/`, { key: own.personal_api_key, body });
      expect(refused).toMatchObject({ status: 400, body: { code: 'null', attr: Object.keys(body)[0] } });
    }
    const nullOverGraph = await gql(stack.graphqlUrl, 'mutation ($id: ID!) { update_personal_api_key(id: $id, label: null) { label } }', { id: created.body.id }, own.personal_api_key);
    expect(nullOverGraph.errors?.[0]?.extensions).toMatchObject({ code: 'null', attr: 'label', status: 400 });
    expect((await api(stack.url, 'GET', `/api/personal_api_keys/${created.body.id}/`, { key: own.personal_api_key })).body.label).toBe('new name');
    const graph = await gql(stack.graphqlUrl, 'mutation ($id: ID!) { update_personal_api_key(id: $id, label: "via graph") { label } }', { id: created.body.id }, own.personal_api_key);
    expect(graph.data.update_personal_api_key).toEqual({ label: 'via graph' });
  });

  it('changes a key\'s scopes with PATCH (the label kept), and they apply to the key at once', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'rescope');
    const created = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: own.personal_api_key, body: { label: 'reader', scopes: ['user:read'] } });
    const project = `/api/organizations/${own.organization_id}/projects/${own.project_id}/`;
    expect((await api(stack.url, 'GET', project, { key: created.body.value })).status).toBe(403);
    const patched = await api(stack.url, 'PATCH', `/api/personal_api_keys/${created.body.id}/`, { key: own.personal_api_key, body: { scopes: ['project:read', 'project:read'] } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ label: 'reader', scopes: ['project:read'] });
    await expect.poll(async () => (await api(stack.url, 'GET', project, { key: created.body.value })).status, { timeout: 5000 }).toBe(200);
    const invalid = await api(stack.url, 'PATCH', `/api/personal_api_keys/${created.body.id}/`, { key: own.personal_api_key, body: { scopes: ['nothing:read'] } });
    expect(invalid.body).toMatchObject({ attr: 'scopes', detail: 'Invalid scope: nothing:read' });
    expect((await api(stack.url, 'PATCH', `/api/personal_api_keys/${created.body.id}/`, { key: own.personal_api_key, body: { scopes: [] } })).body).toMatchObject({ attr: 'scopes', code: 'empty' });
  });

  it('rolls a key: a new value with the same scopes, and the old value stops working', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'roll');
    const created = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: own.personal_api_key, body: { label: 'rolled', scopes: ['user:read'] } });
    const rolled = await api(stack.url, 'POST', `/api/personal_api_keys/${created.body.id}/roll/`, { key: own.personal_api_key });
    expect(rolled.status).toBe(200);
    expect(rolled.body).toMatchObject({ id: created.body.id, label: 'rolled', scopes: ['user:read'] });
    expect(rolled.body.value).toMatch(/^phx_/);
    expect(rolled.body.value).not.toBe(created.body.value);
    expect(rolled.body.mask_value).toBe(`phx_...${rolled.body.value.slice(-4)}`);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await gql(stack.graphqlUrl, '{ me { id } }', {}, created.body.value)).status).toBe(401);
    expect((await gql(stack.graphqlUrl, '{ me { id } }', {}, rolled.body.value)).errors).toBeUndefined();
    const graph = await gql(stack.graphqlUrl, 'mutation ($id: ID!) { roll_personal_api_key(id: $id) { value } }', { id: created.body.id }, own.personal_api_key);
    expect(graph.data.roll_personal_api_key.value).toMatch(/^phx_/);
  });

  it('reads a key from the body or the query string when no header carries one, as PostHog does', async () => {
    const me = `/api/organizations/${tenant.organization_id}/projects/${tenant.project_id}/`;
    const fromQuery = await api(stack.url, 'GET', `${me}?personal_api_key=${tenant.personal_api_key}`);
    expect(fromQuery.status, fromQuery.text).toBe(200);
    expect(fromQuery.body.id).toBe(tenant.project_id);
    const fromBody = await api(stack.url, 'PATCH', me, { body: { personal_api_key: tenant.personal_api_key, name: 'Named with a body key' } });
    expect(fromBody.status, fromBody.text).toBe(200);
    expect(fromBody.body.name).toBe('Named with a body key');
    // The header wins, and an unknown key's 401 says where it was found.
    expect((await api(stack.url, 'GET', `${me}?personal_api_key=phx_unknown`, { key: tenant.personal_api_key })).status).toBe(200);
    expect((await api(stack.url, 'GET', `${me}?personal_api_key=phx_unknown`)).body).toEqual({
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request query string is invalid.',
      attr: null,
    });
    expect((await api(stack.url, 'PATCH', me, { body: { personal_api_key: 'phx_unknown', name: 'x' } })).body.detail).toBe('Personal API key found in request body is invalid.');
  });

  it('answers @current with the key of the request', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'current');
    const current = await api(stack.url, 'GET', '/api/personal_api_keys/@current/', { key: own.personal_api_key });
    expect(current.status).toBe(200);
    expect(current.body.mask_value).toBe(`phx_...${own.personal_api_key.slice(-4)}`);
  });

  it("needs * to rename or roll, and finds no other user's key", async () => {
    const own = await seedTenant(inject('databaseUrl'), 'key-owner');
    const created = await api(stack.url, 'POST', '/api/personal_api_keys/', { key: own.personal_api_key, body: { label: 'mine', scopes: ['project:read'] } });
    const limited = await createKey(stack.url, own.personal_api_key, ['user:write', 'project:write']);
    expect((await api(stack.url, 'PATCH', `/api/personal_api_keys/${created.body.id}/`, { key: limited, body: { label: 'x' } })).status).toBe(403);
    expect((await api(stack.url, 'POST', `/api/personal_api_keys/${created.body.id}/roll/`, { key: limited })).status).toBe(403);
    const stranger = await seedTenant(inject('databaseUrl'), 'key-stranger');
    for (const [method, suffix, body] of [['GET', '', undefined], ['PATCH', '', { label: 'stolen' }], ['POST', 'roll/', undefined], ['DELETE', '', undefined]] as const) {
      const response = await api(stack.url, method, `/api/personal_api_keys/${created.body.id}/${suffix}`, { key: stranger.personal_api_key, body });
      expect(response.status, `${method} ${suffix}`).toBe(404);
    }
    const still = await api(stack.url, 'GET', `/api/personal_api_keys/${created.body.id}/`, { key: own.personal_api_key });
    expect(still.body.label).toBe('mine');
  });
});
