import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { newUser as newAccountUser } from '../../../test/kit/accounts.js';
import { subgraphOrm } from '../../../test/kit/orm.js';
import { MemoryPubSub } from '../../shared/pubsub/memory.pubsub.js';
import { secretBox } from '../../shared/secrets.js';
import { accounts } from '../index.js';
import { MAX_FAILURES, recordFailure } from '../users/credential-lockout.js';
import { User } from '../users/user.entity.js';
import { TwoFactorService } from './two-factor.service.js';

const orm = subgraphOrm(accounts);
const service = () => new TwoFactorService(orm().em.fork(), new MemoryPubSub());

/** A user of its own and the actor of a `*` key of theirs. */
const newUser = (label: string) => newAccountUser(orm().em.fork(), label);

/** The code an authenticator shows for `secret`, `steps` periods from now. */
const code = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });

/** A code no step near now gives, so it is wrong whatever the clock does meanwhile. */
function wrongCode(secret: string, seed = 0): string {
  const near = new Set([-2, -1, 0, 1, 2].map((steps) => code(secret, steps)));
  for (let candidate = 100000 + seed * 7919; ; candidate++) if (!near.has(String(candidate))) return String(candidate);
}

/** A user with 2FA on, its secret and the backup codes it was shown. */
async function enabled(label: string) {
  const { user, actor } = await newUser(label);
  const { secret } = await service().startSetup(actor, '@me');
  const { backup_codes } = await service().validateSetup(actor, '@me', code(secret));
  return { user, actor, secret, backupCodes: backup_codes };
}

const mailsTo = async (address: string) =>
  (await orm().em.fork().execute<{ purpose: string }[]>('select purpose from accounts.outbox where recipient = ? order by id', [address])).map((row) => row.purpose);

describe(TwoFactorService.name, () => {
  describe('startSetup', () => {
    it('keeps the secret sealed, and a second setup replaces a pending one: only the new secret confirms it', async () => {
      const { user, actor } = await newUser('2fa-restart');
      const first = await service().startSetup(actor, '@me');
      const second = await service().startSetup(actor, '@me');
      const devices = await orm().em.fork().execute<{ secret_sealed: string }[]>('select secret_sealed from accounts.totp_devices where user_id = ?', [user.id]);
      expect(devices).toHaveLength(1);
      expect(devices[0]!.secret_sealed).not.toContain(second.secret);
      expect(secretBox().open(devices[0]!.secret_sealed)).toBe(second.secret);
      await expect(service().validateSetup(actor, '@me', code(first.secret))).rejects.toMatchObject({ extensions: { code: 'token_invalid' } });
      expect((await service().validateSetup(actor, '@me', code(second.secret))).backup_codes).toHaveLength(10);
    });
  });

  describe('validateSetup', () => {
    it('counts wrong setup codes: after five, even the right code is refused with 429 and 2FA stays off', async () => {
      const { actor } = await newUser('2fa-setup-brute');
      const { secret } = await service().startSetup(actor, '@me');
      for (let attempt = 0; attempt < MAX_FAILURES; attempt++) {
        await expect(service().validateSetup(actor, '@me', wrongCode(secret, attempt))).rejects.toMatchObject({ extensions: { code: 'token_invalid' } });
      }
      await expect(service().validateSetup(actor, '@me', code(secret))).rejects.toMatchObject({ extensions: { status: 429 } });
      expect(await service().status(actor, '@me')).toMatchObject({ is_enabled: false });
    });

    it('queues the "enabled" notice only once a code confirms setup, and "disabled" only when 2FA was on', async () => {
      const { user, actor } = await newUser('2fa-notices');
      await service().disable(actor, '@me');
      const { secret } = await service().startSetup(actor, '@me');
      await expect(service().validateSetup(actor, '@me', wrongCode(secret))).rejects.toMatchObject({ extensions: { code: 'token_invalid' } });
      expect(await mailsTo(user.email)).toEqual([]);
      await service().validateSetup(actor, '@me', code(secret));
      await service().disable(actor, '@me');
      expect(await mailsTo(user.email)).toEqual(['two_factor_enabled', 'two_factor_disabled']);
    });
  });

  describe('validate', () => {
    it("refuses another user's backup code: a code is bound to the account it was shown to", async () => {
      const [owner, other] = await Promise.all([enabled('2fa-codes-owner'), enabled('2fa-codes-other')]);
      await expect(service().validate(other.actor, '@me', owner.backupCodes[0])).rejects.toMatchObject({ extensions: { code: 'token_invalid' } });
      expect(await service().validate(owner.actor, '@me', owner.backupCodes[0])).toEqual({ success: true });
      expect(await service().status(other.actor, '@me')).toMatchObject({ backup_codes_remaining: 10 });
    });

    it('locks code checks out by wrong codes only: five wrong passwords leave them open', async () => {
      const { user, actor, secret } = await enabled('2fa-kinds');
      for (let attempt = 0; attempt < MAX_FAILURES; attempt++) await recordFailure(orm().em.fork(), user.id, 'password');
      expect(await service().validate(actor, '@me', code(secret, 1))).toEqual({ success: true });
    });

    it('answers 404 for a deactivated account, whatever the code', async () => {
      const { user, actor, backupCodes } = await enabled('2fa-inactive');
      await orm().em.fork().nativeUpdate(User, { id: user.id }, { is_active: false });
      await expect(service().validate(actor, '@me', backupCodes[0])).rejects.toMatchObject({ message: 'Not found.', extensions: { status: 404 } });
      await expect(service().status(actor, '@me')).rejects.toMatchObject({ extensions: { status: 404 } });
    });
  });
});
