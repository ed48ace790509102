import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { subgraphOrm } from '../../../test/kit/orm.js';
import type { Actor } from '../../shared/auth/actor.js';
import { createLogger } from '../../shared/logger.js';
import { MemoryPubSub } from '../../shared/pubsub/memory.pubsub.js';
import { accounts } from '../index.js';
import { UserAccountService } from '../users/user-account.service.js';
import { User } from '../users/user.entity.js';
import { EmailVerificationService } from './email-verification.service.js';

// The services queue mail in the outbox (no stack of this file delivers it): tokens are read there.
const orm = subgraphOrm(accounts);
const pubsub = new MemoryPubSub();
const silent = createLogger('silent');
const service = () => new EmailVerificationService(orm().em.fork(), pubsub, silent);
const accountService = () => new UserAccountService(orm().em.fork(), pubsub, silent);

const address = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.test`;

/** A user of its own (no password is checked here) and the actor of a `*` key of theirs. */
async function newUser(label: string): Promise<{ user: User; actor: Actor }> {
  const user = Object.assign(new User(), { email: address(label), password_hash: 'scrypt$unused' });
  await orm().em.fork().persistAndFlush(user);
  return { user, actor: { kind: 'personal_api_key', user: { id: user.id, uuid: user.uuid }, scopes: ['*'], organizations: {} } };
}

/** The tokens of the verification mails queued for `recipient`, oldest first. */
async function tokensMailedTo(recipient: string): Promise<string[]> {
  const rows = await orm().em.fork().execute<{ body: string }[]>(`select body from accounts.outbox where recipient = ? and purpose = 'email_verification' order by id`, [recipient]);
  return rows.map((row) => /Token:\n([0-9A-Za-z]+)\n/.exec(row.body)![1]!);
}

const fresh = (user: User) => orm().em.fork().findOneOrFail(User, user.id);

describe(EmailVerificationService.name, () => {
  describe('verify', () => {
    it('refuses the token of an address the account has since moved away from, and changes nothing', async () => {
      const { user, actor } = await newUser('verify-moved');
      const [first, second] = [address('first'), address('second')];
      await accountService().update(actor, { uuid: '@me', email: first });
      await accountService().update(actor, { uuid: '@me', email: second });
      const [firstToken] = await tokensMailedTo(first);
      await expect(service().verify({ uuid: user.uuid, token: firstToken })).rejects.toMatchObject({ extensions: { code: 'invalid_token', attr: 'token' } });
      expect(await fresh(user)).toMatchObject({ email: user.email, pending_email: second, is_email_verified: false });
      const [secondToken] = await tokensMailedTo(second);
      expect(await service().verify({ uuid: user.uuid, token: secondToken })).toEqual({ success: true, token: secondToken });
      expect(await fresh(user)).toMatchObject({ email: second, pending_email: null, is_email_verified: true });
    });

    it('spends every outstanding token of the address it verifies', async () => {
      const { user } = await newUser('verify-spends');
      for (let mail = 0; mail < 2; mail++) {
        await orm().em.fork().transactional(async (tx) => service().queue(tx, await tx.findOneOrFail(User, user.id), user.email, 'request'));
      }
      const [one, two] = await tokensMailedTo(user.email);
      expect(one).not.toBe(two);
      await service().verify({ uuid: user.uuid, token: two });
      await expect(service().verify({ uuid: user.uuid, token: one })).rejects.toMatchObject({ extensions: { code: 'token_used' } });
    });

    it('answers invalid_token for a malformed uuid, as for an unknown one', async () => {
      await expect(service().verify({ uuid: 'not-a-uuid', token: 'x'.repeat(43) })).rejects.toMatchObject({ extensions: { code: 'invalid_token', attr: 'token' } });
    });
  });

  describe('request', () => {
    it('mails the pending address when the account is named by its current one', async () => {
      const { user, actor } = await newUser('request-pending');
      const pending = address('pending');
      await accountService().update(actor, { uuid: '@me', email: pending });
      await expect(service().request({ kind: 'anonymous', scopes: [], organizations: {} }, { email: user.email.toUpperCase() })).resolves.toEqual({ success: true });
      // The mail is queued after the answer.
      await expect.poll(async () => (await tokensMailedTo(pending)).length, { timeout: 5000 }).toBe(2);
      expect(await tokensMailedTo(user.email)).toEqual([]);
    });
  });
});
