import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Actor } from '../../shared/auth/actor.js';
import { migrate } from '../../shared/db/migrate.js';
import { ormOptions } from '../../shared/db/orm.js';
import { createLogger } from '../../shared/logger.js';
import { MemoryPubSub } from '../../shared/pubsub/memory.pubsub.js';
import { HOURLY_QUOTA } from '../email-verification/email-verification.service.js';
import { accounts } from '../index.js';
import { MAX_FAILURES, recordFailure } from './credential-lockout.js';
import { hashPassword } from './password.js';
import { UserAccountService } from './user-account.service.js';
import { User } from './user.entity.js';

const PASSWORD = 'correct horse battery staple';
let orm: MikroORM;
/** One real hash for every user of this file: each scrypt run takes about a second. */
let passwordHash: string;
const silent = createLogger('silent');
const service = () => new UserAccountService(orm.em.fork(), new MemoryPubSub(), silent);

beforeAll(async () => {
  orm = await MikroORM.init(ormOptions(accounts, inject('databaseUrl'), 2));
  [passwordHash] = await Promise.all([hashPassword(PASSWORD), migrate(accounts, orm, silent)]);
});
afterAll(() => orm?.close());

const address = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.test`;

async function newUser(label: string, changes: Partial<User> = {}): Promise<{ user: User; actor: Actor }> {
  const user = Object.assign(new User(), { email: address(label), password_hash: passwordHash, ...changes });
  await orm.em.fork().persistAndFlush(user);
  return { user, actor: { kind: 'personal_api_key', user: { id: user.id, uuid: user.uuid }, scopes: ['*'], organizations: {} } };
}

const fresh = (user: User) => orm.em.fork().findOneOrFail(User, user.id);
const mailsTo = async (recipient: string) => (await orm.em.fork().execute('select 1 from accounts.outbox where recipient = ?', [recipient])).length;

describe(UserAccountService.name, () => {
  describe('get', () => {
    it('answers 404 for a deactivated account, to itself and to staff alike, and for a malformed uuid', async () => {
      const [staff, other] = await Promise.all([newUser('staff', { is_staff: true }), newUser('deactivated')]);
      expect(await service().get(staff.actor, other.user.uuid)).toMatchObject({ email: other.user.email });
      await orm.em.fork().nativeUpdate(User, { id: other.user.id }, { is_active: false });
      for (const [actor, uuid] of [[staff.actor, other.user.uuid], [other.actor, '@me'], [other.actor, other.user.uuid], [staff.actor, 'not-a-uuid']] as const) {
        await expect(service().get(actor, uuid)).rejects.toMatchObject({ message: 'Not found.', extensions: { status: 404 } });
      }
    });

    it("changes nothing of another user's account for a caller who is not staff", async () => {
      const [caller, other] = await Promise.all([newUser('caller'), newUser('victim')]);
      await expect(service().update(caller.actor, { uuid: other.user.uuid, first_name: 'Mallory', email: address('stolen') })).rejects.toMatchObject({ extensions: { status: 404 } });
      expect(await fresh(other.user)).toMatchObject({ first_name: '', email: other.user.email, pending_email: null });
    });
  });

  describe('update', () => {
    it('keeps one pending address: asking for it again mails nothing more, asking for the current one drops it', async () => {
      const { user, actor } = await newUser('pending');
      const pending = address('new');
      expect(await service().update(actor, { uuid: '@me', email: pending })).toMatchObject({ email: user.email, pending_email: pending });
      expect(await service().update(actor, { uuid: '@me', email: pending.toUpperCase() })).toMatchObject({ pending_email: pending });
      expect(await mailsTo(pending)).toBe(1);
      expect(await service().update(actor, { uuid: '@me', email: ` ${user.email.toUpperCase()} ` })).toMatchObject({ email: user.email, pending_email: null });
      expect(await mailsTo(user.email)).toBe(0);
    });

    it('refuses an email change past the hourly quota with 429, keeping the last pending address and mailing nothing', async () => {
      const { user, actor } = await newUser('change-quota');
      const addresses = Array.from({ length: HOURLY_QUOTA.change + 1 }, (_, index) => address(`change-${index}`));
      for (const email of addresses.slice(0, -1)) await service().update(actor, { uuid: '@me', email });
      await expect(service().update(actor, { uuid: '@me', email: addresses.at(-1), first_name: 'Changed' })).rejects.toMatchObject({ extensions: { status: 429 } });
      expect(await fresh(user)).toMatchObject({ pending_email: addresses.at(-2), first_name: '' });
      expect(await mailsTo(addresses.at(-1)!)).toBe(0);
    });

    it('counts wrong current passwords apart from wrong codes: five wrong codes lock no password change out', async () => {
      const { user, actor } = await newUser('password-kinds');
      for (let attempt = 0; attempt < MAX_FAILURES; attempt++) await recordFailure(orm.em.fork(), user.id, 'code');
      await expect(service().update(actor, { uuid: '@me', password: 'a new passphrase', current_password: 'not it at all' })).rejects.toMatchObject({
        extensions: { code: 'invalid_password', attr: 'current_password' },
      });
      const kinds = await orm.em.fork().execute<{ kind: string }[]>('select kind from accounts.credential_failures where user_id = ? order by id', [user.id]);
      expect(kinds.map((row) => row.kind)).toEqual([...Array<string>(MAX_FAILURES).fill('code'), 'password']);
      await service().update(actor, { uuid: '@me', password: 'a new passphrase', current_password: PASSWORD });
      const changed = await fresh(user);
      expect(changed.password_hash).not.toBe(passwordHash);
      expect(changed.password_changed_at).not.toBeNull();
    });
  });

  describe('cancelEmailChange', () => {
    it("cancels only the caller's own pending change", async () => {
      const [owner, other] = await Promise.all([newUser('cancel-owner'), newUser('cancel-other')]);
      const pending = address('kept');
      await service().update(owner.actor, { uuid: '@me', email: pending });
      await expect(service().cancelEmailChange(other.actor)).rejects.toMatchObject({ extensions: { code: 'email_change_request_not_found' } });
      expect(await fresh(owner.user)).toMatchObject({ pending_email: pending });
    });
  });
});
