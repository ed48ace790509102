import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, gql } from './kit/http.js';
import { addMember, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

const OWNER = 15;
const ADMIN = 8;
const MEMBER = 1;

let stack: Stack;
const members = (organizationId: string) => `/api/organizations/${organizationId}/members/`;

/** An organization (its owner's tenant) with an admin and a member, each a user with their own key. */
async function team(label: string): Promise<{ owner: Tenant; admin: Tenant; member: Tenant }> {
  const databaseUrl = inject('databaseUrl');
  const [owner, admin, member] = await Promise.all(['owner', 'admin', 'member'].map((role) => seedTenant(databaseUrl, `${label}-${role}`)));
  await addMember(databaseUrl, stack.url, admin!.personal_api_key, owner!.organization_id, ADMIN);
  await addMember(databaseUrl, stack.url, member!.personal_api_key, owner!.organization_id, MEMBER);
  return { owner: owner!, admin: admin!, member: member! };
}

async function levels(tenant: Tenant, organizationId: string): Promise<Record<string, number>> {
  const list = await api(stack.url, 'GET', members(organizationId), { key: tenant.personal_api_key });
  expect(list.status).toBe(200);
  return Object.fromEntries(list.body.results.map((entry: { user: { uuid: string }; level: number }) => [entry.user.uuid, entry.level]));
}

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
});
afterAll(() => stack?.stop());

describe('organization members over REST', () => {
  it('lists the members with their levels and users, to members only', async () => {
    const { owner, admin, member } = await team('list');
    const list = await api(stack.url, 'GET', members(owner.organization_id), { key: member.personal_api_key });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(3);
    // PostHog's order: by level, the latest to join first.
    expect(list.body.results.map((entry: { level: number }) => entry.level)).toEqual([MEMBER, ADMIN, OWNER]);
    expect(list.body.results[0]).toMatchObject({ level: MEMBER, user: { uuid: member.user_uuid, email: member.email } });
    expect(Object.keys(list.body.results[0]).sort()).toEqual(['id', 'joined_at', 'level', 'updated_at', 'user']);
    expect(await levels(owner, owner.organization_id)).toEqual({ [owner.user_uuid]: OWNER, [admin.user_uuid]: ADMIN, [member.user_uuid]: MEMBER });
  });

  it('lets admins change others up to their own level, and nobody their own', async () => {
    const { owner, admin, member } = await team('levels');
    const path = (tenant: Tenant) => `${members(owner.organization_id)}${tenant.user_uuid}/`;
    const denied = async (key: string, tenant: Tenant, level: number, detail: string) => {
      const response = await api(stack.url, 'PATCH', path(tenant), { key, body: { level } });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail, attr: null });
    };
    await denied(member.personal_api_key, admin, MEMBER, 'You can only edit others if you are an admin.');
    await denied(admin.personal_api_key, admin, MEMBER, "You can't change your own access level.");
    await denied(admin.personal_api_key, owner, ADMIN, 'You can only edit others with level lower or equal to you.');
    await denied(admin.personal_api_key, member, OWNER, 'You can only change access level of others to lower or equal to your current one.');
    await denied(owner.personal_api_key, owner, ADMIN, "You can't change your own access level.");
    const invalid = await api(stack.url, 'PATCH', path(member), { key: owner.personal_api_key, body: { level: 5 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ type: 'validation_error', code: 'invalid_choice', attr: 'level' });
    expect(await levels(owner, owner.organization_id)).toEqual({ [owner.user_uuid]: OWNER, [admin.user_uuid]: ADMIN, [member.user_uuid]: MEMBER });

    const promoted = await api(stack.url, 'PATCH', path(member), { key: admin.personal_api_key, body: { level: ADMIN } });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ level: ADMIN, user: { uuid: member.user_uuid } });
    expect((await api(stack.url, 'PATCH', path(member), { key: owner.personal_api_key, body: { level: MEMBER } })).body.level).toBe(MEMBER);
  });

  it('decides who may create projects: a demoted admin no longer can, from the next request on', async () => {
    const { owner, admin } = await team('demoted');
    const projects = `/api/organizations/${owner.organization_id}/projects/`;
    expect((await api(stack.url, 'POST', projects, { key: admin.personal_api_key, body: { name: 'By the admin' } })).status).toBe(201);
    await api(stack.url, 'PATCH', `${members(owner.organization_id)}${admin.user_uuid}/`, { key: owner.personal_api_key, body: { level: MEMBER } });
    expect((await api(stack.url, 'POST', projects, { key: admin.personal_api_key, body: { name: 'Not any more' } })).status).toBe(403);
    const record = await api(stack.url, 'GET', `${projects}${owner.project_id}/`, { key: admin.personal_api_key });
    expect(record.body).toMatchObject({ effective_membership_level: MEMBER, user_access_level: 'member' });
  });

  it('keeps at least one owner: ownership is handed over, and the last owner cannot leave', async () => {
    const { owner, admin, member } = await team('owners');
    const path = (tenant: Tenant) => `${members(owner.organization_id)}${tenant.user_uuid}/`;
    expect((await api(stack.url, 'PATCH', path(admin), { key: owner.personal_api_key, body: { level: OWNER } })).status).toBe(200);
    expect((await api(stack.url, 'PATCH', path(owner), { key: admin.personal_api_key, body: { level: ADMIN } })).status).toBe(200);
    const last = await api(stack.url, 'DELETE', path(admin), { key: admin.personal_api_key });
    expect(last.status).toBe(400);
    expect(last.body).toEqual({ type: 'validation_error', code: 'last_owner', detail: 'An organization must keep at least one owner.', attr: 'level' });
    expect(await levels(admin, owner.organization_id)).toEqual({ [owner.user_uuid]: ADMIN, [admin.user_uuid]: OWNER, [member.user_uuid]: MEMBER });
  });

  it('lets a member leave and admins remove others below them; a removed user reaches nothing from the next request on', async () => {
    const { owner, admin, member } = await team('leave');
    const path = (tenant: Tenant) => `${members(owner.organization_id)}${tenant.user_uuid}/`;
    expect((await api(stack.url, 'DELETE', path(owner), { key: admin.personal_api_key })).status).toBe(403);
    expect((await api(stack.url, 'DELETE', path(admin), { key: member.personal_api_key })).status).toBe(403);
    const left = await api(stack.url, 'DELETE', path(member), { key: member.personal_api_key });
    expect(left.status).toBe(204);
    expect(left.text).toBe('');
    expect((await api(stack.url, 'DELETE', path(admin), { key: owner.personal_api_key })).status).toBe(204);
    expect((await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/`, { key: member.personal_api_key })).status).toBe(403);
    expect((await api(stack.url, 'GET', members(owner.organization_id), { key: admin.personal_api_key })).status).toBe(403);
    expect(await levels(owner, owner.organization_id)).toEqual({ [owner.user_uuid]: OWNER });
  });

  it('serialises concurrent changes, so two owners demoting each other leave one owner', async () => {
    const { owner, admin } = await team('race');
    const path = (tenant: Tenant) => `${members(owner.organization_id)}${tenant.user_uuid}/`;
    await api(stack.url, 'PATCH', path(admin), { key: owner.personal_api_key, body: { level: OWNER } });
    const answers = await Promise.all([
      api(stack.url, 'PATCH', path(admin), { key: owner.personal_api_key, body: { level: ADMIN } }),
      api(stack.url, 'PATCH', path(owner), { key: admin.personal_api_key, body: { level: ADMIN } }),
    ]);
    // The second change finds its caller demoted already: no longer allowed to change an owner.
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 403]);
    const after = await levels(owner, owner.organization_id);
    expect(Object.values(after).filter((level) => level === OWNER)).toHaveLength(1);
  });

  it("gives another organization's key nothing: 403 on its members, 404 for unknown users", async () => {
    const { owner, member } = await team('isolation');
    const outsider = await seedTenant(inject('databaseUrl'), 'members-outsider');
    const before = await levels(owner, owner.organization_id);
    expect((await api(stack.url, 'GET', members(owner.organization_id), { key: outsider.personal_api_key })).status).toBe(403);
    for (const [method, body] of [['PATCH', { level: OWNER }], ['PATCH', { level: 5 }], ['DELETE', undefined]] as const) {
      const foreign = await api(stack.url, method, `${members(owner.organization_id)}${member.user_uuid}/`, { key: outsider.personal_api_key, body });
      expect(foreign.status).toBe(403);
      // The owner's member under the outsider's own organization is not a member there.
      const crossed = await api(stack.url, method, `${members(outsider.organization_id)}${member.user_uuid}/`, { key: outsider.personal_api_key, body });
      expect(crossed.status).toBe(404);
    }
    const unknown = await api(stack.url, 'PATCH', `${members(owner.organization_id)}00000000-0000-4000-8000-000000000000/`, { key: owner.personal_api_key, body: { level: ADMIN } });
    expect(unknown.status).toBe(404);
    expect(await levels(owner, owner.organization_id)).toEqual(before);
    const own = await api(stack.url, 'GET', members(outsider.organization_id), { key: outsider.personal_api_key });
    expect(own.body.results.map((entry: { user: { uuid: string } }) => entry.user.uuid)).toEqual([outsider.user_uuid]);
  });
});

describe('organization members over GraphQL', () => {
  it('lists and changes with the same rules and scopes', async () => {
    const { owner, admin, member } = await team('graphql');
    const list = await gql(stack.graphqlUrl, 'query ($o: ID!) { organization_members(organization_id: $o) { count results { level user { uuid } } } }', { o: owner.organization_id }, member.personal_api_key);
    expect(list.data.organization_members.count).toBe(3);
    const update = 'mutation ($o: ID!, $u: String!, $l: Int!) { update_organization_member(organization_id: $o, user_uuid: $u, level: $l) { level } }';
    const refused = await gql(stack.graphqlUrl, update, { o: owner.organization_id, u: admin.user_uuid, l: MEMBER }, member.personal_api_key);
    expect(refused.errors?.[0]).toMatchObject({ message: 'You can only edit others if you are an admin.', extensions: { code: 'permission_denied', status: 403 } });
    const changed = await gql(stack.graphqlUrl, update, { o: owner.organization_id, u: member.user_uuid, l: ADMIN }, admin.personal_api_key);
    expect(changed.data.update_organization_member.level).toBe(ADMIN);
    const remove = 'mutation ($o: ID!, $u: String!) { remove_organization_member(organization_id: $o, user_uuid: $u) }';
    const last = await gql(stack.graphqlUrl, remove, { o: owner.organization_id, u: owner.user_uuid }, owner.personal_api_key);
    expect(last.errors?.[0]?.extensions).toMatchObject({ code: 'last_owner', status: 400 });
  });

  it('needs organization:read to list and organization:write to change', async () => {
    const { owner, member } = await team('scopes');
    const reader = (await api(stack.url, 'POST', '/api/personal_api_keys/', { key: owner.personal_api_key, body: { label: 'reader', scopes: ['organization:read'] } })).body.value;
    expect((await api(stack.url, 'GET', members(owner.organization_id), { key: reader })).status).toBe(200);
    const patch = await api(stack.url, 'PATCH', `${members(owner.organization_id)}${member.user_uuid}/`, { key: reader, body: { level: ADMIN } });
    expect(patch.status).toBe(403);
    expect(patch.body.detail).toBe("API key missing required scope 'organization:write'");
    const other = (await api(stack.url, 'POST', '/api/personal_api_keys/', { key: owner.personal_api_key, body: { label: 'other', scopes: ['project:read'] } })).body.value;
    expect((await api(stack.url, 'GET', members(owner.organization_id), { key: other })).status).toBe(403);
  });
});
