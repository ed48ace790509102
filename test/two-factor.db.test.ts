import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from './kit/db.js';
import { api, gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
const base = '/api/users/@me';

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
});
afterAll(() => stack?.stop());

/** The code an authenticator app shows for `secret`, `steps` periods from now. */
function code(secret: string, steps = 0): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
}

/** A code that no step near now gives (so it is wrong whatever the clock does during the test). */
function wrongCode(secret: string, seed = 0): string {
  const near = new Set([-2, -1, 0, 1, 2].map((steps) => code(secret, steps)));
  for (let candidate = 100000 + seed * 7919; ; candidate++) if (!near.has(String(candidate))) return String(candidate);
}

const post = (tenant: Tenant, action: string, body?: unknown) => api(stack.url, 'POST', `${base}/${action}/`, { key: tenant.personal_api_key, body });
const status = async (tenant: Tenant) => (await api(stack.url, 'GET', `${base}/two_factor_status/`, { key: tenant.personal_api_key })).body;

/** A user with 2FA on: its secret and the backup codes it was shown. */
async function enabled(label: string): Promise<{ tenant: Tenant; secret: string; setupCode: string; backupCodes: string[] }> {
  const tenant = await seedTenant(inject('databaseUrl'), label);
  const setup = await api(stack.url, 'GET', `${base}/two_factor_start_setup/`, { key: tenant.personal_api_key });
  const setupCode = code(setup.body.secret);
  const validated = await post(tenant, 'two_factor_validate', { token: setupCode });
  expect(validated.status).toBe(200);
  return { tenant, secret: setup.body.secret, setupCode, backupCodes: validated.body.backup_codes };
}

describe('two-factor setup', () => {
  it('returns a secret, its otpauth URI and a QR code; a current code turns 2FA on with ten backup codes', async () => {
    const tenant = await seedTenant(inject('databaseUrl'), '2fa-setup');
    expect(await status(tenant)).toEqual({ is_enabled: false, method: null, backup_codes: [], backup_codes_remaining: 0 });
    const setup = await api(stack.url, 'GET', `${base}/two_factor_start_setup/`, { key: tenant.personal_api_key });
    expect(setup.status).toBe(200);
    expect(setup.body.success).toBe(true);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(setup.body.otpauth_uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(setup.body.secret);
    expect(decodeURIComponent(uri.pathname)).toContain(tenant.email);
    expect(setup.body.qr_code).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);

    const wrong = await post(tenant, 'two_factor_validate', { token: wrongCode(setup.body.secret) });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ type: 'validation_error', code: 'token_invalid', detail: 'Token is not valid', attr: null });
    const missing = await post(tenant, 'two_factor_validate', {});
    expect(missing.body).toMatchObject({ code: 'required', attr: 'token' });

    const validated = await post(tenant, 'two_factor_validate', { token: code(setup.body.secret) });
    expect(validated.status).toBe(200);
    expect(validated.body.backup_codes).toHaveLength(10);
    expect(new Set(validated.body.backup_codes).size).toBe(10);
    const shown = await status(tenant);
    expect(shown).toMatchObject({ is_enabled: true, method: 'TOTP', backup_codes_remaining: 10 });
    // Masked: only the last two characters of each code, never a code in clear.
    expect(shown.backup_codes).toEqual(validated.body.backup_codes.map((backup: string) => `*****-***${backup.slice(-2)}`));
    expect((await api(stack.url, 'GET', '/api/users/@me/', { key: tenant.personal_api_key })).body.is_2fa_enabled).toBe(true);

    const stored = await sql<{ secret_sealed: string }>(inject('databaseUrl'), 'select secret_sealed from accounts.totp_devices d join accounts.users u on u.id = d.user_id where u.uuid = $1', [tenant.user_uuid]);
    expect(stored[0]!.secret_sealed).not.toContain(setup.body.secret);
    const hashes = await sql<{ code_hash: string }>(inject('databaseUrl'), 'select code_hash from accounts.two_factor_backup_codes c join accounts.users u on u.id = c.user_id where u.uuid = $1', [tenant.user_uuid]);
    expect(hashes).toHaveLength(10);
    for (const backup of validated.body.backup_codes) expect(hashes.map((row) => row.code_hash)).not.toContain(backup);
  });

  it('refuses setup that has expired, and a second setup while 2FA is on', async () => {
    const tenant = await seedTenant(inject('databaseUrl'), '2fa-expired');
    const setup = await api(stack.url, 'GET', `${base}/two_factor_start_setup/`, { key: tenant.personal_api_key });
    await sql(inject('databaseUrl'), `update accounts.totp_devices set created_at = now() - interval '11 minutes' where user_id = (select id from accounts.users where uuid = $1)`, [tenant.user_uuid]);
    const expired = await post(tenant, 'two_factor_validate', { token: code(setup.body.secret) });
    expect(expired.body).toMatchObject({ code: 'setup_expired' });
    const { tenant: on } = await enabled('2fa-again');
    const again = await api(stack.url, 'GET', `${base}/two_factor_start_setup/`, { key: on.personal_api_key });
    expect(again.body).toMatchObject({ code: '2fa_already_enabled' });
  });
});

describe('validate_2fa', () => {
  it('accepts a code once: the code of setup and a replayed code are refused', async () => {
    const { tenant, secret, setupCode } = await enabled('2fa-replay');
    // The code that confirmed setup was spent there.
    expect((await post(tenant, 'validate_2fa', { token: setupCode })).body.code).toBe('token_invalid');
    // The next period's code is within the window; once.
    const next = code(secret, 1);
    expect((await post(tenant, 'validate_2fa', { token: next })).status).toBe(200);
    expect((await post(tenant, 'validate_2fa', { token: next })).body.code).toBe('token_invalid');
    // A code older than one accepted is refused too.
    expect((await post(tenant, 'validate_2fa', { token: setupCode })).body.code).toBe('token_invalid');
  });

  it('accepts each backup code once, in any case and with or without its dash', async () => {
    const { tenant, backupCodes } = await enabled('2fa-backup');
    expect((await post(tenant, 'validate_2fa', { token: backupCodes[0] })).status).toBe(200);
    expect((await post(tenant, 'validate_2fa', { token: backupCodes[0] })).body.code).toBe('token_invalid');
    expect((await post(tenant, 'validate_2fa', { token: backupCodes[1]!.replace('-', '').toUpperCase() })).status).toBe(200);
    expect(await status(tenant)).toMatchObject({ backup_codes_remaining: 8 });
    const graph = await gql(stack.graphqlUrl, 'mutation ($token: String) { validate_2fa(uuid: "@me", token: $token) { success } }', { token: backupCodes[2] }, tenant.personal_api_key);
    expect(graph.data.validate_2fa).toEqual({ success: true });
  });

  it('locks attempts out with 429 after 5 wrong codes in 15 minutes, even a right one, until the window passes', async () => {
    const { tenant, secret } = await enabled('2fa-brute');
    for (let attempt = 0; attempt < 5; attempt++) {
      const wrong = await post(tenant, 'validate_2fa', { token: wrongCode(secret, attempt) });
      expect(wrong.status).toBe(400);
    }
    const locked = await post(tenant, 'validate_2fa', { token: code(secret, 1) });
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ type: 'throttled_error', code: 'throttled', attr: null });
    expect(locked.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
    // The window passes.
    await sql(inject('databaseUrl'), `update accounts.credential_failures set created_at = created_at - interval '15 minutes' where user_id = (select id from accounts.users where uuid = $1)`, [tenant.user_uuid]);
    expect((await post(tenant, 'validate_2fa', { token: code(secret, 1) })).status).toBe(200);
  });

  it('counts concurrent wrong codes exactly and accepts one code once among concurrent requests', async () => {
    const { tenant, secret } = await enabled('2fa-race');
    const next = code(secret, 1);
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(tenant, 'validate_2fa', { token: next })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(2);
  });

  it('answers 400 when 2FA is off', async () => {
    const tenant = await seedTenant(inject('databaseUrl'), '2fa-off');
    expect((await post(tenant, 'validate_2fa', { token: '123456' })).body).toMatchObject({ code: '2fa_not_enabled' });
    expect((await post(tenant, 'two_factor_backup_codes', { token: '123456' })).body).toMatchObject({ code: '2fa_not_enabled' });
  });
});

describe('backup codes and disabling', () => {
  it('replaces the backup codes for a current code only: the old ones stop working', async () => {
    const { tenant, secret, backupCodes } = await enabled('2fa-regenerate');
    expect((await post(tenant, 'two_factor_backup_codes')).body).toMatchObject({ code: 'required', attr: 'token' });
    expect((await post(tenant, 'two_factor_backup_codes', { token: wrongCode(secret) })).body).toMatchObject({ code: 'token_invalid' });
    const fresh = await post(tenant, 'two_factor_backup_codes', { token: backupCodes[9] });
    expect(fresh.body.backup_codes).toHaveLength(10);
    expect((await post(tenant, 'validate_2fa', { token: backupCodes[0] })).status).toBe(400);
    expect((await post(tenant, 'validate_2fa', { token: fresh.body.backup_codes[0] })).status).toBe(200);
    const again = await post(tenant, 'two_factor_backup_codes', { token: code(secret, 1) });
    expect(again.status).toBe(200);
  });

  it("lets staff see and turn off another user's 2FA, but not enrol, check or mint codes for them", async () => {
    const [{ tenant: other, secret }, staff] = await Promise.all([enabled('2fa-staffed'), seedTenant(inject('databaseUrl'), '2fa-staff')]);
    await sql(inject('databaseUrl'), 'update accounts.users set is_staff = true where uuid = $1', [staff.user_uuid]);
    const path = `/api/users/${other.user_uuid}`;
    const as = (method: string, action: string, body?: unknown) => api(stack.url, method, `${path}/${action}/`, { key: staff.personal_api_key, body });
    expect((await as('GET', 'two_factor_start_setup')).status).toBe(404);
    expect((await as('POST', 'two_factor_validate', { token: code(secret) })).status).toBe(404);
    expect((await as('POST', 'validate_2fa', { token: code(secret, 1) })).status).toBe(404);
    expect((await as('POST', 'two_factor_backup_codes', { token: code(secret, 1) })).status).toBe(404);
    expect((await as('GET', 'two_factor_status')).body).toMatchObject({ is_enabled: true });
    expect((await as('POST', 'two_factor_disable')).status).toBe(200);
    expect(await status(other)).toMatchObject({ is_enabled: false });
  });

  it('turns 2FA off and removes the device and every backup code', async () => {
    const { tenant, backupCodes } = await enabled('2fa-disable');
    const disabled = await post(tenant, 'two_factor_disable');
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ success: true });
    expect(await status(tenant)).toEqual({ is_enabled: false, method: null, backup_codes: [], backup_codes_remaining: 0 });
    expect((await post(tenant, 'validate_2fa', { token: backupCodes[0] })).body.code).toBe('2fa_not_enabled');
    const left = await sql(inject('databaseUrl'), `select (select count(*) from accounts.totp_devices where user_id = u.id) as devices, (select count(*) from accounts.two_factor_backup_codes where user_id = u.id) as codes from accounts.users u where u.uuid = $1`, [tenant.user_uuid]);
    expect(left[0]).toEqual({ devices: '0', codes: '0' });
  });
});

describe('two-factor over GraphQL', () => {
  it('runs the whole flow: setup, validate, status, step-up, new codes, disable', async () => {
    const tenant = await seedTenant(inject('databaseUrl'), '2fa-graphql');
    const run = async (query: string, variables: Record<string, unknown> = {}) => {
      const result = await gql(stack.graphqlUrl, query, variables, tenant.personal_api_key);
      expect(result.errors).toBeUndefined();
      return result.data;
    };
    const { two_factor_start_setup: setup } = await run('mutation { two_factor_start_setup(uuid: "@me") { success secret otpauth_uri qr_code } }');
    expect(setup.otpauth_uri).toContain(`secret=${setup.secret}`);
    const { two_factor_validate: validated } = await run('mutation ($t: String) { two_factor_validate(uuid: "@me", token: $t) { success backup_codes } }', { t: code(setup.secret) });
    expect(validated.backup_codes).toHaveLength(10);
    const { two_factor_status: status } = await run('{ two_factor_status(uuid: "@me") { is_enabled method backup_codes_remaining } }');
    expect(status).toEqual({ is_enabled: true, method: 'TOTP', backup_codes_remaining: 10 });
    const next = code(setup.secret, 1);
    expect((await run('mutation ($t: String) { validate_2fa(uuid: "@me", token: $t) { success } }', { t: next })).validate_2fa.success).toBe(true);
    const replay = await gql(stack.graphqlUrl, 'mutation ($t: String) { validate_2fa(uuid: "@me", token: $t) { success } }', { t: next }, tenant.personal_api_key);
    expect(replay.errors?.[0]?.extensions).toMatchObject({ code: 'token_invalid', status: 400 });
    const regenerated = await run('mutation ($t: String) { two_factor_backup_codes(uuid: "@me", token: $t) { backup_codes } }', { t: validated.backup_codes[0] });
    expect(regenerated.two_factor_backup_codes.backup_codes).toHaveLength(10);
    expect((await run('mutation { two_factor_disable(uuid: "@me") { success } }')).two_factor_disable.success).toBe(true);
    expect((await run('{ me { is_2fa_enabled } }')).me.is_2fa_enabled).toBe(false);
  });
});
