import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Authenticator } from '../router/auth.js';
import { ActorSigner } from '../subgraphs/shared/auth/actor.js';
import { api, gql } from './kit/http.js';
import { profileOperations } from './kit/profile-operations.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
let intruder: Tenant;
let ownerConfig: string;

const ownerList = async () =>
  (await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/customer_profile_configs/`, { key: owner.personal_api_key })).body;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  [owner, intruder] = await Promise.all([seedTenant(inject('databaseUrl'), 'owner'), seedTenant(inject('databaseUrl'), 'intruder')]);
  const created = await api(stack.url, 'POST', `/api/environments/${owner.environment_id}/customer_profile_configs/`, {
    key: owner.personal_api_key,
    body: { scope: 'group_1', content: { secret: 'owner only' } },
  });
  ownerConfig = created.body.id;
});
afterAll(() => stack?.stop());

describe.each(profileOperations)('tenant isolation: $name', (operation) => {
  it("REST: another organization's key gets 403 on the owner's environment and changes nothing", async () => {
    const before = await ownerList();
    const request = operation.rest(owner.environment_id, ownerConfig);
    const response = await api(stack.url, request.method, request.path, { key: intruder.personal_api_key, body: request.body });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: "You don't have access to the project.", attr: null });
    expect(await ownerList()).toEqual(before);
  });

  it("REST: the owner's config id under the intruder's own environment is not found", async () => {
    const before = await ownerList();
    const request = operation.rest(intruder.environment_id, ownerConfig);
    const response = await api(stack.url, request.method, request.path, { key: intruder.personal_api_key, body: request.body });
    if (operation.name === 'list') {
      expect(response.body.results.map((config: { id: string }) => config.id)).not.toContain(ownerConfig);
    } else if (operation.name === 'create') {
      expect(response.status).toBe(201);
      expect(response.body.id).not.toBe(ownerConfig);
    } else {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    }
    expect(await ownerList()).toEqual(before);
  });

  it("GraphQL: another organization's key is refused and changes nothing", async () => {
    const before = await ownerList();
    const request = operation.graphql(owner.environment_id, ownerConfig);
    const result = await gql(stack.graphqlUrl, request.query, request.variables, intruder.personal_api_key);
    expect(result.data?.[request.field] ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'permission_denied', status: 403 });
    const crossId = operation.graphql(intruder.environment_id, ownerConfig);
    const second = await gql(stack.graphqlUrl, crossId.query, crossId.variables, intruder.personal_api_key);
    if (operation.name !== 'list' && operation.name !== 'create') {
      expect(second.errors?.[0]?.extensions).toMatchObject({ code: 'not_found', status: 404 });
    }
    expect(await ownerList()).toEqual(before);
  });
});

describe('tenant isolation: personal API keys', () => {
  it("lists only the caller's own keys and cannot read or revoke another user's", async () => {
    const ownerKeys = await api(stack.url, 'GET', '/api/personal_api_keys/', { key: owner.personal_api_key });
    const ownerKeyId = ownerKeys.body[0].id as string;
    const listed = await api(stack.url, 'GET', '/api/personal_api_keys/', { key: intruder.personal_api_key });
    expect(listed.body.map((key: { id: string }) => key.id)).not.toContain(ownerKeyId);
    expect((await api(stack.url, 'GET', `/api/personal_api_keys/${ownerKeyId}/`, { key: intruder.personal_api_key })).status).toBe(404);
    expect((await api(stack.url, 'DELETE', `/api/personal_api_keys/${ownerKeyId}/`, { key: intruder.personal_api_key })).status).toBe(404);
    expect((await api(stack.url, 'GET', '/api/personal_api_keys/', { key: owner.personal_api_key })).status).toBe(200);
  });
});

describe('tenant isolation: cross-subgraph entities', () => {
  it("resolves a config's project only for its own tenant", async () => {
    const query = 'query ($p: Int!) { customer_profile_configs(project_id: $p) { results { project { id name } } } }';
    const own = await gql(stack.graphqlUrl, query, { p: owner.environment_id }, owner.personal_api_key);
    expect(own.data.customer_profile_configs.results[0].project).toEqual({ id: owner.project_id, name: 'Default project' });
    const project = await gql(stack.graphqlUrl, 'query ($id: Int!) { project(id: $id) { name } }', { id: owner.project_id }, intruder.personal_api_key);
    expect(project.errors?.[0]?.extensions?.code).toBe('permission_denied');
    const organization = await gql(stack.graphqlUrl, 'query ($id: ID!) { organization(id: $id) { name } }', { id: owner.organization_id }, intruder.personal_api_key);
    expect(organization.errors?.[0]?.extensions?.code).toBe('not_found');
  });

  it("resolves a reference to another organization's project to null, in its brief form (two columns read) as in full", async () => {
    const authenticator = new Authenticator(new ActorSigner(TEST_SECRET_KEY), { accounts: stack.subgraphs.urls.accounts!, projects: stack.subgraphs.urls.projects! });
    const [ownerActor, intruderActor] = await Promise.all([owner, intruder].map((tenant) => authenticator.actorFor(`Bearer ${tenant.personal_api_key}`)));
    const variables = { r: [{ __typename: 'Project', id: owner.project_id }] };
    for (const selection of ['id name', 'id name api_token']) {
      const document = parse(`query ($r: [_Any!]!) { _entities(representations: $r) { ... on Project { ${selection} } } }`);
      const own = await stack.subgraphs.local.projects!.execute({ document, variables }, ownerActor);
      expect(own.data).toEqual({ _entities: [expect.objectContaining({ id: owner.project_id, name: 'Default project' })] });
      const other = await stack.subgraphs.local.projects!.execute({ document, variables }, intruderActor);
      expect(other).toEqual({ data: { _entities: [null] } });
    }
  });
});
