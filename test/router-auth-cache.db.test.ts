import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AUTH_CACHE_MS, Authenticator, REFRESH_AFTER_MS } from '../router/auth.js';
import { ActorSigner, type Actor } from '../subgraphs/shared/auth/actor.js';
import { KEY_CHANGES_TOPIC, userKeysChange } from '../subgraphs/shared/auth/key-changes.js';
import { sha256Hex } from '../subgraphs/shared/crypto.js';
import { AuthenticationFailedError } from '../subgraphs/shared/errors.js';
import { MemoryPubSub } from '../subgraphs/shared/pubsub/memory.pubsub.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';

let stack: Stack;
let tenant: Tenant;
let database: pg.Client;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  tenant = await seedTenant(inject('databaseUrl'), 'auth-cache');
  database = new pg.Client({ connectionString: inject('databaseUrl') });
  await database.connect();
});
afterAll(async () => {
  await database?.end();
  await stack?.stop();
});

/** How the authenticator reaches the subgraphs: over HTTP (a router alone), or in this process (`npm start`). */
const REACHES = ['over HTTP', 'in process'] as const;
type Reach = (typeof REACHES)[number];

/** An authenticator on the stack's real subgraphs, on a clock the test moves. */
function authenticatorAt(reach: Reach, clock: { now: number }): Authenticator {
  const urls = { accounts: stack.subgraphs.urls.accounts!, projects: stack.subgraphs.urls.projects! };
  const local = reach === 'in process' ? stack.subgraphs.local : {};
  if (reach === 'in process') expect([local.accounts, local.projects].every(Boolean)).toBe(true);
  return new Authenticator(new ActorSigner(TEST_SECRET_KEY), urls, { local, clock: () => clock.now });
}

/** Changes a key's scopes behind the platform's back: no announcement, as a command-line tool would. */
async function setScopes(key: string, scopes: string[]): Promise<void> {
  const { rowCount } = await database.query('update accounts.personal_api_keys set scopes = $1 where secure_value = $2', [JSON.stringify(scopes), `sha256$${sha256Hex(key)}`]);
  expect(rowCount).toBe(1);
}

/** Lets the background lookup a request started answer (two calls to the subgraphs). */
async function settle(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200 && !(await check()); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe.each(REACHES)('the router\'s key cache, lookups %s', (reach) => {
  it('looks a key in use up again in the background, so that a key in steady use never waits for a lookup', async () => {
    const key = await createKey(stack.url, tenant.personal_api_key, ['project:read']);
    const clock = { now: 1_800_000_000_000 };
    const authenticator = authenticatorAt(reach, clock);
    const header = `Bearer ${key}`;
    const first = authenticator.actorFor(header);
    expect((await first).scopes).toEqual(['project:read']);

    // Young entries are answered as they are, with no lookup.
    await setScopes(key, ['project:read', 'insight:read']);
    clock.now += REFRESH_AFTER_MS - 1;
    expect(authenticator.actorFor(header)).toBe(first);

    // Past REFRESH_AFTER_MS, a request still gets the entry at once and starts a lookup that replaces it.
    clock.now += 1;
    expect(authenticator.actorFor(header)).toBe(first);
    await settle(async () => authenticator.actorFor(header) !== first);
    const refreshed = authenticator.actorFor(header);
    expect((await refreshed).scopes).toEqual(['project:read', 'insight:read']);

    // The replacement counts its life from when its lookup started: past the first entry's expiry it
    // is still answered at once, with no lookup (a change made meanwhile is not seen yet)...
    await setScopes(key, ['*']);
    clock.now += AUTH_CACHE_MS - REFRESH_AFTER_MS + 1;
    expect(authenticator.actorFor(header)).toBe(refreshed);
    // ...and never past AUTH_CACHE_MS from then: a request after that waits for a lookup of its own.
    clock.now += AUTH_CACHE_MS;
    const fresh = authenticator.actorFor(header);
    expect(fresh).not.toBe(refreshed);
    expect((await fresh).scopes).toEqual(['*']);
  });

  it('answers an unknown key as failed authentication, and a known one with its user, scopes and memberships', async () => {
    const authenticator = authenticatorAt(reach, { now: Date.now() });
    await expect(authenticator.actorFor('Bearer phx_not_a_key_of_anyone_at_all_0000000000')).rejects.toBeInstanceOf(AuthenticationFailedError);
    const actor = await authenticator.actorFor(`Bearer ${tenant.personal_api_key}`);
    expect(actor).toMatchObject({ kind: 'personal_api_key', user: { uuid: tenant.user_uuid }, scopes: ['*'], organizations: { [tenant.organization_id]: 15 } });
  });

  it('drops a key found no longer valid by the background lookup, without waiting for the entry to expire', async () => {
    const key = await createKey(stack.url, tenant.personal_api_key, ['project:read']);
    const clock = { now: 1_800_000_000_000 };
    const authenticator = authenticatorAt(reach, clock);
    const header = `Bearer ${key}`;
    const first = authenticator.actorFor(header);
    await first;
    await database.query('delete from accounts.personal_api_keys where secure_value = $1', [`sha256$${sha256Hex(key)}`]);
    clock.now += REFRESH_AFTER_MS;
    expect(authenticator.actorFor(header)).toBe(first);
    await settle(async () => authenticator.actorFor(header) !== first);
    await expect(authenticator.actorFor(header)).rejects.toBeInstanceOf(AuthenticationFailedError);
  });

  it('keeps no background answer for a user announced as changed while it ran', async () => {
    const key = await createKey(stack.url, tenant.personal_api_key, ['project:read']);
    const clock = { now: 1_800_000_000_000 };
    const authenticator = authenticatorAt(reach, clock);
    const pubsub = new MemoryPubSub();
    await authenticator.follow(pubsub);
    const header = `Bearer ${key}`;
    const first = authenticator.actorFor(header);
    const user = (await first).user!;
    await setScopes(key, ['insight:read']);
    clock.now += REFRESH_AFTER_MS;
    expect(authenticator.actorFor(header)).toBe(first);
    // The announcement comes while the background lookup runs: the lookup may have read what the
    // change replaced, so its answer must not stand once it comes (a second is ample for it to).
    await pubsub.publish(KEY_CHANGES_TOPIC, userKeysChange(user.id));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await setScopes(key, ['*']);
    const after: Promise<Actor> = authenticator.actorFor(header);
    expect(after).not.toBe(first);
    expect((await after).scopes).toEqual(['*']);
    await pubsub.close();
  });
});
