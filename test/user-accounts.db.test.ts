import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { subgraphNamed } from '../subgraphs/index.js';
import { accountsFacade } from '../subgraphs/accounts/facade.js';
import { ormOptions } from '../subgraphs/shared/db/orm.js';
import { sql } from './kit/db.js';
import { api, gql } from './kit/http.js';
import { addMember, createKey, seedTenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
const me = '/api/users/@me/';

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
});
afterAll(() => stack?.stop());

const tenant = (label: string) => seedTenant(inject('databaseUrl'), label);
const patch = (key: string, body: unknown, path = me) => api(stack.url, 'PATCH', path, { key, body });

/**
 * Whether `npm run bootstrap`'s check of an existing user's password accepts this one (the
 * bootstrap itself would also rotate the user's bootstrap key, which the tenant's key is).
 */
async function passwordWorks(email: string, password: string): Promise<boolean> {
  const orm = await MikroORM.init(ormOptions(subgraphNamed('accounts'), inject('databaseUrl'), 1));
  try {
    await accountsFacade.ensureUser(orm.em.fork(), email, password);
    return true;
  } catch {
    return false;
  } finally {
    await orm.close();
  }
}

describe('the user account over REST and GraphQL', () => {
  it('answers the full record at @me, at the own uuid (both slash forms) and as `me`', async () => {
    const owner = await tenant('profile');
    const record = await api(stack.url, 'GET', me, { key: owner.personal_api_key });
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      uuid: owner.user_uuid,
      email: owner.email,
      pending_email: null,
      is_email_verified: false,
      is_staff: false,
      is_2fa_enabled: false,
      has_password: true,
      toolbar_mode: 'toolbar',
      theme_mode: null,
      events_column_config: { active: 'DEFAULT' },
      notification_settings: { plugin_disabled: true, all_weekly_digest_disabled: false, project_weekly_digest_disabled: {} },
      organization: { id: owner.organization_id, membership_level: 15 },
      team: { id: owner.environment_id, organization: owner.organization_id },
      organizations: [{ id: owner.organization_id, membership_level: 15 }],
    });
    expect(record.body).not.toHaveProperty('password_hash');
    expect(record.body).not.toHaveProperty('current_organization_id');
    expect(record.body.team.api_token).toBe(owner.project_api_key);
    const byUuid = await api(stack.url, 'GET', `/api/users/${owner.user_uuid}`, { key: owner.personal_api_key });
    expect(byUuid.body).toEqual(record.body);
    const graph = await gql(stack.graphqlUrl, '{ me { uuid email organization { id name } team { id } organizations { id } } }', {}, owner.personal_api_key);
    expect(graph.data.me).toMatchObject({ uuid: owner.user_uuid, email: owner.email, organization: { id: owner.organization_id }, team: { id: owner.environment_id } });
  });

  it('changes profile fields and preferences, merging notification settings', async () => {
    const owner = await tenant('prefs');
    const changed = await patch(owner.personal_api_key, {
      first_name: '  Ada ',
      last_name: 'Lovelace',
      theme_mode: 'dark',
      toolbar_mode: 'disabled',
      role_at_organization: 'engineering',
      hedgehog_config: { color: 'green' },
      anonymize_data: true,
      notification_settings: { plugin_disabled: false, project_weekly_digest_disabled: { [owner.project_id]: true } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', theme_mode: 'dark', toolbar_mode: 'disabled', role_at_organization: 'engineering', anonymize_data: true, hedgehog_config: { color: 'green' } });
    const again = await patch(owner.personal_api_key, { notification_settings: { discussions_mentioned: false } });
    expect(again.body.notification_settings).toMatchObject({ plugin_disabled: false, discussions_mentioned: false, error_tracking_issue_assigned: true, project_weekly_digest_disabled: { [owner.project_id]: true } });
    const graph = await gql(stack.graphqlUrl, 'mutation { update_user(uuid: "@me", theme_mode: "light") { theme_mode first_name } }', {}, owner.personal_api_key);
    expect(graph.data.update_user).toEqual({ theme_mode: 'light', first_name: 'Ada' });
  });

  it.each([
    ['theme_mode', { theme_mode: 'neon' }, 'theme_mode', 'invalid_choice'],
    ['toolbar_mode', { toolbar_mode: null }, 'toolbar_mode', 'invalid_choice'],
    ['role_at_organization', { role_at_organization: 'astronaut' }, 'role_at_organization', 'invalid_choice'],
    ['first_name', { first_name: 'x'.repeat(151) }, 'first_name', 'max_length'],
    ['notification_settings', { notification_settings: { unknown_setting: true } }, 'notification_settings', 'invalid_key'],
    // Names every object inherits are not settings either.
    ['notification_settings', { notification_settings: { toString: true } }, 'notification_settings', 'invalid_key'],
    // An own `__proto__` key, as JSON.parse makes it: refused, not dropped on the way.
    ['notification_settings', { notification_settings: JSON.parse('{"__proto__": true}') }, 'notification_settings', 'invalid_key'],
    ['notification_settings', { notification_settings: { plugin_disabled: 'yes' } }, 'notification_settings', 'invalid_input'],
    ['hedgehog_config', { hedgehog_config: 'green' }, 'hedgehog_config', 'not_a_dict'],
    ['hedgehog_config', { hedgehog_config: { big: 'x'.repeat(70_000) } }, 'hedgehog_config', 'max_length'],
    ['email', { email: 'not-an-address' }, 'email', 'invalid_input'],
    ['set_current_organization', { set_current_organization: '00000000-0000-4000-8000-000000000000' }, 'set_current_organization', 'does_not_exist'],
    ['set_current_team', { set_current_team: '999999' }, 'set_current_team', 'does_not_exist'],
  ])('refuses a bad %s (%s) with 400 on its field and changes nothing', async (_name, body, attr, code) => {
    const owner = await tenant('invalid');
    const before = await api(stack.url, 'GET', me, { key: owner.personal_api_key });
    const response = await patch(owner.personal_api_key, { first_name: 'Changed', ...body });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: 'validation_error', code, attr });
    expect((await api(stack.url, 'GET', me, { key: owner.personal_api_key })).body).toEqual(before.body);
  });

  it('switches the current organization and environment only to ones the user belongs to', async () => {
    const [owner, other] = await Promise.all([tenant('switch'), tenant('switch-other')]);
    await addMember(inject('databaseUrl'), stack.url, owner.personal_api_key, other.organization_id, 1);
    const moved = await patch(owner.personal_api_key, { set_current_organization: other.organization_id });
    expect(moved.status).toBe(200);
    expect(moved.body.organization).toMatchObject({ id: other.organization_id, membership_level: 1 });
    expect(moved.body.team.id).toBe(other.environment_id);
    expect(moved.body.organizations.map((organization: { id: string }) => organization.id)).toEqual([owner.organization_id, other.organization_id]);
    const back = await patch(owner.personal_api_key, { set_current_team: String(owner.environment_id) });
    expect(back.body).toMatchObject({ organization: { id: owner.organization_id }, team: { id: owner.environment_id } });
    const stranger = await tenant('switch-stranger');
    const refused = await patch(owner.personal_api_key, { set_current_team: String(stranger.environment_id) });
    expect(refused.status).toBe(400);
    expect(refused.body.attr).toBe('set_current_team');
  });

  it('shows the current environment (with its token) only to a key that may read projects', async () => {
    const owner = await tenant('team-scope');
    const reader = await createKey(stack.url, owner.personal_api_key, ['user:read']);
    const record = await api(stack.url, 'GET', me, { key: reader });
    expect(record.status).toBe(200);
    expect(record.body.team).toBeNull();
    expect(record.body.organization).toMatchObject({ id: owner.organization_id });
    expect(JSON.stringify(record.body)).not.toContain(owner.project_api_key);
  });

  it('refuses addresses that mail would read as more than one', async () => {
    const owner = await tenant('email-list');
    for (const email of ['ceo,attacker@evil.test', 'a;b@evil.test', '"x"@evil.test', 'Name <a@evil.test>', 'a b@evil.test']) {
      const refused = await patch(owner.personal_api_key, { email });
      expect(refused.status, email).toBe(400);
      expect(refused.body.attr).toBe('email');
    }
  });

  it('locks out wrong current passwords with 429 after five in 15 minutes', async () => {
    const owner = await tenant('password-lockout');
    for (let attempt = 0; attempt < 5; attempt++) {
      const wrong = await patch(owner.personal_api_key, { password: 'a new passphrase', current_password: `wrong ${attempt}` });
      expect(wrong.body.code).toBe('invalid_password');
    }
    const locked = await patch(owner.personal_api_key, { password: 'a new passphrase', current_password: 'correct horse battery staple' });
    expect(locked.status).toBe(429);
    expect(await passwordWorks(owner.email, 'correct horse battery staple')).toBe(true);
  });

  it('changes the password with the current one; keys keep working', async () => {
    const owner = await tenant('password');
    const missing = await patch(owner.personal_api_key, { password: 'a new passphrase' });
    expect(missing.body).toMatchObject({ code: 'required', attr: 'current_password' });
    const wrong = await patch(owner.personal_api_key, { password: 'a new passphrase', current_password: 'not it at all' });
    expect(wrong.body).toMatchObject({ code: 'invalid_password', attr: 'current_password' });
    const short = await patch(owner.personal_api_key, { password: 'short', current_password: 'correct horse battery staple' });
    expect(short.body).toMatchObject({ code: 'password_too_short', attr: 'password' });
    expect(await passwordWorks(owner.email, 'correct horse battery staple')).toBe(true);
    const changed = await patch(owner.personal_api_key, { password: 'a new passphrase', current_password: 'correct horse battery staple' });
    expect(changed.status).toBe(200);
    expect(changed.body).not.toHaveProperty('password');
    expect(await passwordWorks(owner.email, 'a new passphrase')).toBe(true);
    expect(await passwordWorks(owner.email, 'correct horse battery staple')).toBe(false);
    expect((await api(stack.url, 'GET', me, { key: owner.personal_api_key })).status).toBe(200);
  });
});

describe('staff and other users', () => {
  it("answers 404 for another user's uuid, on every user path, unless the caller is staff", async () => {
    const [caller, other] = await Promise.all([tenant('nosy'), tenant('private')]);
    const path = `/api/users/${other.user_uuid}`;
    const attempts: [string, string, unknown?][] = [
      ['GET', path],
      ['PATCH', path, { first_name: 'Mallory' }],
      ['GET', `${path}/two_factor_start_setup/`],
      ['GET', `${path}/two_factor_status/`],
      ['POST', `${path}/two_factor_validate/`, { token: '123456' }],
      ['POST', `${path}/validate_2fa/`, { token: '123456' }],
      ['POST', `${path}/two_factor_backup_codes/`, { token: '123456' }],
      ['POST', `${path}/two_factor_disable/`],
    ];
    for (const [method, target, body] of attempts) {
      const response = await api(stack.url, method, target, { key: caller.personal_api_key, body });
      expect(response.status, `${method} ${target}`).toBe(404);
      expect(response.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    }
    expect((await api(stack.url, 'GET', me, { key: other.personal_api_key })).body.first_name).toBe('');

    await sql(inject('databaseUrl'), 'update accounts.users set is_staff = true where uuid = $1', [caller.user_uuid]);
    const seen = await api(stack.url, 'GET', path, { key: caller.personal_api_key });
    expect(seen.status).toBe(200);
    expect(seen.body.email).toBe(other.email);
    const promoted = await patch(caller.personal_api_key, { is_staff: true }, path);
    expect(promoted.body.is_staff).toBe(true);
  });

  it('lets only staff change is_staff', async () => {
    const owner = await tenant('not-staff');
    const refused = await patch(owner.personal_api_key, { is_staff: true });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('Only staff can change is_staff.');
    // Sending the record back unchanged is fine.
    expect((await patch(owner.personal_api_key, { is_staff: false })).status).toBe(200);
  });
});

describe('user scopes', () => {
  it('needs user:read to read the account and user:write to change it', async () => {
    const owner = await tenant('scopes');
    const [reader, writer, unrelated] = await Promise.all([
      createKey(stack.url, owner.personal_api_key, ['user:read']),
      createKey(stack.url, owner.personal_api_key, ['user:write']),
      createKey(stack.url, owner.personal_api_key, ['project:write']),
    ]);
    const missing = (scope: string) => ({ type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${scope}'`, attr: null });
    expect((await api(stack.url, 'GET', me, { key: reader })).status).toBe(200);
    expect((await api(stack.url, 'GET', me, { key: writer })).status).toBe(200);
    expect((await api(stack.url, 'GET', me, { key: unrelated })).body).toEqual(missing('user:read'));
    expect((await patch(reader, { first_name: 'No' })).body).toEqual(missing('user:write'));
    expect((await patch(writer, { first_name: 'Yes' })).status).toBe(200);
    for (const [method, path] of [
      ['GET', '/api/users/@me/two_factor_status/'],
      ['GET', '/api/users/@me/two_factor_start_setup/'],
      ['POST', '/api/users/@me/two_factor_disable/'],
      ['PATCH', '/api/users/cancel_email_change_request/'],
      ['POST', '/api/users/request_email_verification/'],
      ['POST', '/api/users/verify_email/'],
    ] as const) {
      const response = await api(stack.url, method, path, { key: unrelated, body: method === 'GET' ? undefined : { uuid: owner.user_uuid, token: 'x' } });
      expect(response.status, `${method} ${path}`).toBe(403);
    }
    const graph = await gql(stack.graphqlUrl, '{ me { email } }', {}, unrelated);
    expect(graph.errors?.[0]?.extensions?.code).toBe('permission_denied');
  });
});


/** Every user operation in both forms, with the scope it needs. */
const userOperations: { name: string; scope: 'user:read' | 'user:write'; rest: [string, string, unknown?]; graphql: string }[] = [
  { name: 'get', scope: 'user:read', rest: ['GET', '/api/users/@me/'], graphql: '{ user(uuid: "@me") { id } }' },
  { name: 'me', scope: 'user:read', rest: ['GET', '/api/users/@me'], graphql: '{ me { id } }' },
  { name: 'update', scope: 'user:write', rest: ['PATCH', '/api/users/@me/', { first_name: 'A' }], graphql: 'mutation { update_user(uuid: "@me", first_name: "A") { id } }' },
  { name: 'two_factor_status', scope: 'user:read', rest: ['GET', '/api/users/@me/two_factor_status/'], graphql: '{ two_factor_status(uuid: "@me") { is_enabled } }' },
  { name: 'two_factor_start_setup', scope: 'user:write', rest: ['GET', '/api/users/@me/two_factor_start_setup/'], graphql: 'mutation { two_factor_start_setup(uuid: "@me") { secret } }' },
  { name: 'two_factor_disable', scope: 'user:write', rest: ['POST', '/api/users/@me/two_factor_disable/'], graphql: 'mutation { two_factor_disable(uuid: "@me") { success } }' },
];

describe.each(userOperations)('user operation $name ($scope), REST and GraphQL alike', (operation) => {
  it('answers 401 without a key, 403 naming the scope without it, and works with it', async () => {
    const owner = await tenant(`matrix-${operation.name}`);
    const [method, path, body] = operation.rest;
    const lacking = await createKey(stack.url, owner.personal_api_key, operation.scope === 'user:read' ? ['project:write'] : ['user:read']);
    const holding = await createKey(stack.url, owner.personal_api_key, [operation.scope]);
    expect((await api(stack.url, method, path, { body })).status).toBe(401);
    expect((await gql(stack.graphqlUrl, operation.graphql)).errors?.[0]?.extensions?.code).toBe('not_authenticated');
    const denied = await api(stack.url, method, path, { key: lacking, body });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe(`API key missing required scope '${operation.scope}'`);
    const deniedGraph = await gql(stack.graphqlUrl, operation.graphql, {}, lacking);
    expect(deniedGraph.errors?.[0]?.message).toBe(`API key missing required scope '${operation.scope}'`);
    expect((await api(stack.url, method, path, { key: holding, body })).status).toBe(200);
    expect((await gql(stack.graphqlUrl, operation.graphql, {}, holding)).errors).toBeUndefined();
  });
});

describe('email operations without a key', () => {
  it('are open to anonymous callers (the mailed token is the credential)', async () => {
    const owner = await tenant('anonymous-mail');
    expect((await api(stack.url, 'POST', '/api/users/request_email_verification/', { body: { uuid: owner.user_uuid } })).body).toEqual({ success: true });
    const wrong = await api(stack.url, 'POST', '/api/users/verify_email/', { body: { uuid: owner.user_uuid, token: 'nope' } });
    expect(wrong.body).toMatchObject({ code: 'invalid_token' });
    const graph = await gql(stack.graphqlUrl, 'mutation ($uuid: String) { request_email_verification(uuid: $uuid) { success } }', { uuid: owner.user_uuid });
    expect(graph.data.request_email_verification).toEqual({ success: true });
    // Without a key there is no caller: naming the account is required.
    expect((await api(stack.url, 'PATCH', '/api/users/cancel_email_change_request/', {})).status).toBe(401);
  });
});
