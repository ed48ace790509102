import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from './kit/db.js';
import { api, gql } from './kit/http.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
});
afterAll(() => stack?.stop());

const tenant = (label: string) => seedTenant(inject('databaseUrl'), label);
const get = (key: string | undefined, path: string) => api(stack.url, 'GET', path, { key });
const switchTo = (owner: Tenant, environmentId: number) => api(stack.url, 'PATCH', '/api/users/@me/', { key: owner.personal_api_key, body: { set_current_team: String(environmentId) } });

/** `@current` in a path, as PostHog reads it: the caller's user's current organization, project or environment. */
describe('@current in REST paths', () => {
  it('names the current organization, project and environment wherever an id of one goes', async () => {
    const owner = await tenant('current');
    const key = owner.personal_api_key;
    const project = await get(key, `/api/organizations/@current/projects/@current/`);
    expect(project.status, project.text).toBe(200);
    expect(project.body).toMatchObject({ id: owner.project_id, organization: owner.organization_id });
    expect((await get(key, `/api/environments/@current`)).body).toMatchObject({ id: owner.environment_id, project_id: owner.project_id });
    expect((await get(key, `/api/projects/@current/environments/@current/`)).body).toMatchObject({ id: owner.environment_id });
    const listed = await get(key, `/api/organizations/@current/projects/?limit=1`);
    expect(listed.body.results.map((row: { id: number }) => row.id)).toEqual([owner.project_id]);

    const created = await api(stack.url, 'POST', '/api/environments/@current/customer_profile_configs/', { key, body: { scope: 'person', content: { via: 'current' } } });
    expect(created.status, created.text).toBe(201);
    const numeric = await get(key, `/api/environments/${owner.environment_id}/customer_profile_configs/${created.body.id}/`);
    expect(numeric.body).toMatchObject({ id: created.body.id, content: { via: 'current' } });
    expect((await get(key, `/api/environments/@current/customer_profile_configs/${created.body.id}/`)).body).toEqual(numeric.body);
  });

  it('follows the environment the user switches to', async () => {
    const owner = await tenant('current-switch');
    const created = await api(stack.url, 'POST', `/api/organizations/${owner.organization_id}/projects/`, { key: owner.personal_api_key, body: { name: 'Second' } });
    expect(created.status, created.text).toBe(201);
    // A project's first environment has the project's id, as in PostHog.
    const environmentId = created.body.id as number;
    expect((await switchTo(owner, environmentId)).status).toBe(200);
    expect((await get(owner.personal_api_key, '/api/environments/@current/')).body).toMatchObject({ id: environmentId, project_id: created.body.id });
    expect((await get(owner.personal_api_key, '/api/organizations/@current/projects/@current/')).body).toMatchObject({ id: created.body.id, name: 'Second' });
    expect((await switchTo(owner, owner.environment_id)).status).toBe(200);
    expect((await get(owner.personal_api_key, '/api/environments/@current/')).body).toMatchObject({ id: owner.environment_id });
  });

  it('names the project and the environment apart where their ids differ, with the key in the query string too', async () => {
    const owner = await tenant('current-apart');
    // A second environment of the project: its id is no project's.
    const [second] = await sql<{ id: number }>(
      inject('databaseUrl'),
      `insert into projects.environments (uuid, project_id, name, settings, api_token_hash, api_token_sealed, created_at, updated_at)
       select gen_random_uuid(), project_id, 'Staging', settings, api_token_hash || '-staging', api_token_sealed, now(), now() from projects.environments where id = $1
       returning id`,
      [owner.environment_id],
    );
    expect(second!.id).not.toBe(owner.project_id);
    expect((await switchTo(owner, second!.id)).status).toBe(200);
    const key = owner.personal_api_key;
    expect((await get(key, '/api/environments/@current/')).body).toMatchObject({ id: second!.id, project_id: owner.project_id, name: 'Staging' });
    expect((await get(key, '/api/projects/@current/environments/@current/')).body).toMatchObject({ id: second!.id, project_id: owner.project_id });
    expect((await get(key, '/api/organizations/@current/projects/@current/')).body).toMatchObject({ id: owner.project_id });
    const inQuery = await get(undefined, `/api/environments/@current/?personal_api_key=${key}`);
    expect([inQuery.status, inQuery.body.id]).toEqual([200, second!.id]);
  });

  it('finds nothing for a user placed in no organization', async () => {
    const owner = await tenant('current-nowhere');
    await sql(inject('databaseUrl'), 'delete from projects.memberships where user_id = (select id from accounts.users where uuid = $1)', [owner.user_uuid]);
    const missing = await get(owner.personal_api_key, '/api/environments/@current/customer_profile_configs/');
    expect([missing.status, missing.body.type, missing.body.code]).toEqual([404, 'invalid_request', 'not_found']);
  });

  it("leaves the operation's scope and errors as they are, and finds only the caller's own placement", async () => {
    const [owner, stranger] = await Promise.all([tenant('current-scope'), tenant('current-stranger')]);
    const unauthenticated = await get(undefined, '/api/environments/@current/customer_profile_configs/');
    expect([unauthenticated.status, unauthenticated.body.code]).toEqual([401, 'not_authenticated']);
    const unknown = await get(`phx_${'0'.repeat(43)}`, '/api/environments/@current/customer_profile_configs/');
    expect(unknown.status).toBe(401);

    // A key without the operation's scope still learns nothing but the operation's 403.
    const narrow = await createKey(stack.url, owner.personal_api_key, ['endpoint:read']);
    const refused = await get(narrow, '/api/environments/@current/customer_profile_configs/');
    expect([refused.status, refused.body.detail]).toEqual([403, "API key missing required scope 'customer_profile_config:read'"]);
    expect((await get(narrow, '/api/environments/@current/endpoints/')).status).toBe(200);

    // Another organization's key finds its own environment, never the owner's.
    await api(stack.url, 'POST', `/api/environments/${owner.environment_id}/customer_profile_configs/`, { key: owner.personal_api_key, body: { scope: 'group_0', content: { owner: true } } });
    const theirs = await get(stranger.personal_api_key, '/api/environments/@current/customer_profile_configs/');
    expect(theirs.status).toBe(200);
    expect(theirs.body.results).toEqual([]);
    expect((await get(stranger.personal_api_key, '/api/environments/@current/')).body.id).toBe(stranger.environment_id);
  });

  it('is asked over GraphQL as current_placement by any key of the user', async () => {
    const owner = await tenant('current-graphql');
    const narrow = await createKey(stack.url, owner.personal_api_key, ['endpoint:read']);
    const query = '{ current_placement { organization_id project_id environment_id } }';
    const answered = await gql(stack.graphqlUrl, query, {}, narrow);
    expect(answered.data.current_placement).toEqual({ organization_id: owner.organization_id, project_id: owner.project_id, environment_id: owner.environment_id });
    const anonymous = await gql(stack.graphqlUrl, query);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('not_authenticated');
  });
});
