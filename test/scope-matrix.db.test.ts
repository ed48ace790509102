import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, gql } from './kit/http.js';
import { profileOperations } from './kit/profile-operations.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let tenant: Tenant;
const keys: Record<string, string> = {};

/** A fresh config for operations that need one (and may delete it). */
async function freshConfig(): Promise<string> {
  const created = await api(stack.url, 'POST', `/api/environments/${tenant.environment_id}/customer_profile_configs/`, {
    key: tenant.personal_api_key,
    body: { scope: 'person' },
  });
  return created.body.id as string;
}

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  tenant = await seedTenant(inject('databaseUrl'), 'scopes');
  keys.unrelated = await createKey(stack.url, tenant.personal_api_key, ['project:read', 'endpoint:write']);
  keys.read = await createKey(stack.url, tenant.personal_api_key, ['customer_profile_config:read']);
  keys.write = await createKey(stack.url, tenant.personal_api_key, ['customer_profile_config:write']);
});
afterAll(() => stack?.stop());

describe.each(profileOperations)('scope matrix: $name ($scope)', (operation) => {
  const allowed = operation.scope === 'customer_profile_config:read' ? ['read', 'write', 'star'] : ['write', 'star'];
  const denied = operation.scope === 'customer_profile_config:read' ? ['unrelated'] : ['unrelated', 'read'];
  const keyOf = (name: string) => (name === 'star' ? tenant.personal_api_key : keys[name]!);

  it('REST: 401 without a key, 401 with an unknown key', async () => {
    const request = operation.rest(tenant.environment_id, await freshConfig());
    const none = await api(stack.url, request.method, request.path, { body: request.body });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null });
    const unknown = await api(stack.url, request.method, request.path, { key: 'phx_thisKeyDoesNotExist0000000000', body: request.body });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('authentication_failed');
  });

  it.each(denied)('REST: 403 naming the scope for a key with %s scopes', async (name) => {
    const request = operation.rest(tenant.environment_id, await freshConfig());
    const response = await api(stack.url, request.method, request.path, { key: keyOf(name), body: request.body });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: `API key missing required scope '${operation.scope}'`,
      attr: null,
    });
  });

  it.each(allowed)('REST: succeeds with a %s key', async (name) => {
    const request = operation.rest(tenant.environment_id, await freshConfig());
    const response = await api(stack.url, request.method, request.path, { key: keyOf(name), body: request.body });
    expect(response.status).toBe(request.status);
  });

  it('GraphQL: not_authenticated without a key, 401 with an unknown key', async () => {
    const request = operation.graphql(tenant.environment_id, await freshConfig());
    const none = await gql(stack.graphqlUrl, request.query, request.variables);
    expect(none.errors?.[0]?.extensions?.code).toBe('not_authenticated');
    const unknown = await gql(stack.graphqlUrl, request.query, request.variables, 'phx_thisKeyDoesNotExist0000000000');
    expect(unknown.status).toBe(401);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('authentication_failed');
  });

  it.each(denied)('GraphQL: permission_denied for a key with %s scopes', async (name) => {
    const request = operation.graphql(tenant.environment_id, await freshConfig());
    const result = await gql(stack.graphqlUrl, request.query, request.variables, keyOf(name));
    expect(result.errors?.[0]?.message).toBe(`API key missing required scope '${operation.scope}'`);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'permission_denied', status: 403 });
  });

  it.each(allowed)('GraphQL: succeeds with a %s key', async (name) => {
    const request = operation.graphql(tenant.environment_id, await freshConfig());
    const result = await gql(stack.graphqlUrl, request.query, request.variables, keyOf(name));
    expect(result.errors).toBeUndefined();
    expect(result.data[request.field]).toBeTruthy();
  });
});

describe('scope matrix: fields of other subgraphs', () => {
  it('shows the brief form of a config\'s project to a config reader, and nothing more', async () => {
    await freshConfig();
    const brief = await gql(stack.graphqlUrl, 'query ($p: Int!) { customer_profile_configs(project_id: $p) { results { project { id name } } } }', { p: tenant.environment_id }, keys.read);
    expect(brief.errors).toBeUndefined();
    expect(brief.data.customer_profile_configs.results[0].project).toEqual({ id: tenant.project_id, name: 'Default project' });
    for (const field of ['created_at', 'organization', 'api_token']) {
      const more = await gql(stack.graphqlUrl, `query ($p: Int!) { customer_profile_configs(project_id: $p) { results { project { ${field} } } } }`, { p: tenant.environment_id }, keys.read);
      expect(more.errors?.[0]?.message).toBe("API key missing required scope 'project:read'");
    }
  });

  it('needs user:read for the caller\'s own account', async () => {
    const denied = await gql(stack.graphqlUrl, '{ me { email } }', {}, keys.read);
    expect(denied.errors?.[0]?.message).toBe("API key missing required scope 'user:read'");
    expect((await gql(stack.graphqlUrl, '{ me { email } }', {}, tenant.personal_api_key)).data.me.email).toBe(tenant.email);
  });
});
