import { describe, expect, it } from 'vitest';
import { newUser as newAccountUser } from '../../../test/kit/accounts.js';
import { subgraphOrm } from '../../../test/kit/orm.js';
import type { Actor } from '../../shared/auth/actor.js';
import { keyChange, KEY_CHANGES_TOPIC } from '../../shared/auth/key-changes.js';
import { MemoryPubSub } from '../../shared/pubsub/memory.pubsub.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { tokenHash } from '../../shared/secrets.js';
import { accounts } from '../index.js';
import { User } from '../users/user.entity.js';
import { PersonalApiKey } from './personal-api-key.entity.js';
import { CURRENT_KEY, MAX_KEYS_PER_USER, PersonalApiKeyService } from './personal-api-key.service.js';

// Keys belong to a user, not to an organization: the boundary under test is the user.
const orm = subgraphOrm(accounts);
const service = (pubsub?: PubSub) => new PersonalApiKeyService(orm().em.fork(), pubsub);

/** A user of its own and the actor of a `*` key of theirs. */
const newUser = (label: string) => newAccountUser(orm().em.fork(), label);

const stored = (id: string) => orm().em.fork().findOneOrFail(PersonalApiKey, id);

describe(PersonalApiKeyService.name, () => {
  describe('create', () => {
    it('keeps only the hash of the value, and the hash presented as a key authenticates nobody', async () => {
      const { user, actor } = await newUser('key-hash');
      const key = await service().create(actor, { label: ' ci ', scopes: ['project:read', 'project:read'] });
      const rows = await orm().em.fork().execute('select * from accounts.personal_api_keys where id = ?', [key.id]);
      expect(JSON.stringify(rows)).not.toContain(key.value);
      expect(rows[0]).toMatchObject({ secure_value: tokenHash(key.value), label: 'ci', scopes: ['project:read'] });
      expect(await service().authenticate(key.value)).toEqual({ key_id: key.id, user_id: user.id, user_uuid: user.uuid, scopes: ['project:read'] });
      expect(await service().authenticate(rows[0].secure_value)).toBeNull();
      expect(await service().authenticate(rows[0].secure_value.replace(/^sha256\$/, ''))).toBeNull();
    });

    it('refuses a caller without a user (the platform itself)', async () => {
      const platform: Actor = { kind: 'service', scopes: ['*'], organizations: {} };
      await expect(service().create(platform, { label: 'x', scopes: ['*'] })).rejects.toMatchObject({ extensions: { status: 403 } });
      // list is not async: its refusal is thrown at once, which a resolver turns into the same error.
      await expect(Promise.resolve().then(() => service().list(platform))).rejects.toMatchObject({ extensions: { status: 403 } });
    });
  });

  describe('authenticate', () => {
    it("answers null for a deactivated user's key", async () => {
      const { user, actor } = await newUser('key-inactive');
      const key = await service().create(actor, { label: 'ci', scopes: ['*'] });
      expect(await service().authenticate(key.value)).not.toBeNull();
      await orm().em.fork().nativeUpdate(User, { id: user.id }, { is_active: false });
      expect(await service().authenticate(key.value)).toBeNull();
    });
  });

  describe('list and get', () => {
    it("finds only the caller's own keys: another user's is 404, worded as a missing one", async () => {
      const [owner, other] = await Promise.all([newUser('key-owner'), newUser('key-other')]);
      const mine = await service().create(owner.actor, { label: 'mine', scopes: ['*'] });
      const theirs = await service().create(other.actor, { label: 'theirs', scopes: ['*'] });
      expect((await service().list(owner.actor)).map((key) => key.id)).toEqual([mine.id]);
      await expect(service().get(owner.actor, theirs.id)).rejects.toMatchObject({ message: 'Not found.', extensions: { status: 404 } });
      await expect(service().get(owner.actor, 'not-a-uuid')).rejects.toMatchObject({ message: 'Not found.' });
      expect((await service().get(owner.actor, mine.id)).label).toBe('mine');
    });

    it("answers @current with the request's key, and 404 when the request's key is none of the caller's", async () => {
      const [owner, other] = await Promise.all([newUser('key-current'), newUser('key-current-other')]);
      const mine = await service().create(owner.actor, { label: 'mine', scopes: ['*'] });
      const theirs = await service().create(other.actor, { label: 'theirs', scopes: ['*'] });
      expect((await service().get({ ...owner.actor, key_id: mine.id }, CURRENT_KEY)).id).toBe(mine.id);
      await expect(service().get(owner.actor, CURRENT_KEY)).rejects.toMatchObject({ extensions: { status: 404 } });
      await expect(service().get({ ...owner.actor, key_id: theirs.id }, CURRENT_KEY)).rejects.toMatchObject({ extensions: { status: 404 } });
    });
  });

  describe('update, roll and delete', () => {
    it('announces the hash of every value that stops meaning what it meant (rescoped, rolled, revoked), and not a rename', async () => {
      const pubsub = new MemoryPubSub();
      const changes = pubsub.subscribe<unknown>(KEY_CHANGES_TOPIC);
      const { actor } = await newUser('key-announce');
      const key = await service(pubsub).create(actor, { label: 'ci', scopes: ['project:read'] });
      await service(pubsub).update(actor, key.id, { label: 'renamed' });
      // A marker: whatever the rename announced would come before it.
      await pubsub.publish(KEY_CHANGES_TOPIC, { marker: true });
      await service(pubsub).update(actor, key.id, { scopes: ['user:read'] });
      const rolled = await service(pubsub).roll(actor, key.id);
      await service(pubsub).delete(actor, key.id);
      const payloads = [];
      for (let index = 0; index < 4; index++) payloads.push((await changes.next()).value.payload);
      expect(payloads).toEqual([{ marker: true }, keyChange(tokenHash(key.value)), keyChange(tokenHash(key.value)), keyChange(tokenHash(rolled.value))]);
      await changes.return!();
    });

    it('rolls a value: the old one stops authenticating, the last use is cleared, label and scopes stay', async () => {
      const { actor } = await newUser('key-roll');
      const key = await service().create(actor, { label: 'ci', scopes: ['user:read'] });
      await service().authenticate(key.value);
      expect((await stored(key.id)).last_used_at).not.toBeNull();
      const rolled = await service().roll(actor, key.id);
      expect(rolled).toMatchObject({ id: key.id, label: 'ci', scopes: ['user:read'] });
      expect(await stored(key.id)).toMatchObject({ secure_value: tokenHash(rolled.value), last_used_at: null });
      expect(await service().authenticate(key.value)).toBeNull();
      expect(await service().authenticate(rolled.value)).toMatchObject({ key_id: key.id });
    });

    it("changes nothing of another user's key, answering 404", async () => {
      const [owner, other] = await Promise.all([newUser('key-victim'), newUser('key-thief')]);
      const key = await service().create(owner.actor, { label: 'mine', scopes: ['project:read'] });
      await expect(service().update(other.actor, key.id, { scopes: ['*'] })).rejects.toMatchObject({ extensions: { status: 404 } });
      await expect(service().roll(other.actor, key.id)).rejects.toMatchObject({ extensions: { status: 404 } });
      await expect(service().delete(other.actor, key.id)).rejects.toMatchObject({ extensions: { status: 404 } });
      expect(await stored(key.id)).toMatchObject({ scopes: ['project:read'], secure_value: tokenHash(key.value) });
    });
  });

  describe('createReplacingOldest', () => {
    /** Ten keys of one user, the first four as given (oldest first), the rest fillers. */
    async function atTheLimit(actor: Actor, first: { label: string; scopes: string[] }[]): Promise<string[]> {
      const ids: string[] = [];
      for (let index = 0; index < MAX_KEYS_PER_USER; index++) {
        const key = await service().create(actor, first[index] ?? { label: `filler ${index}`, scopes: ['project:read'] });
        // Distinct creation times, oldest first, whatever the clock's resolution.
        await orm().em.fork().nativeUpdate(PersonalApiKey, { id: key.id }, { created_at: new Date(Date.UTC(2026, 0, 1, 0, index)) });
        ids.push(key.id);
      }
      return ids;
    }

    it('at the limit, removes the oldest key with the same label and scopes (in any order), and only it', async () => {
      const { actor } = await newUser('key-bootstrap');
      const [oldest, otherScopes, otherLabel, newer] = await atTheLimit(actor, [
        { label: 'bootstrap', scopes: ['user:read', 'project:read'] },
        { label: 'bootstrap', scopes: ['*'] },
        { label: 'other', scopes: ['project:read', 'user:read'] },
        { label: 'bootstrap', scopes: ['project:read', 'user:read'] },
      ]);
      const created = await service().createReplacingOldest(actor, { label: 'bootstrap', scopes: ['project:read', 'user:read'] });
      const left = (await service().list(actor)).map((key) => key.id);
      expect(left).toHaveLength(MAX_KEYS_PER_USER);
      expect(left).not.toContain(oldest);
      expect(left).toEqual(expect.arrayContaining([otherScopes, otherLabel, newer, created.id]));
    });

    it('at the limit with no such key, refuses as create does and removes nothing', async () => {
      const { actor } = await newUser('key-full');
      const ids = await atTheLimit(actor, []);
      await expect(service().createReplacingOldest(actor, { label: 'bootstrap', scopes: ['*'] })).rejects.toMatchObject({
        message: `You can only have ${MAX_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`,
        extensions: { status: 400 },
      });
      expect((await service().list(actor)).map((key) => key.id).sort()).toEqual([...ids].sort());
    });
  });
});
