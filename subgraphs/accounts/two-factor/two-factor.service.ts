import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { config } from '../../shared/config.js';
import { ThrottledError, ValidationError } from '../../shared/errors.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { secretBox } from '../../shared/secrets.js';
import { announceMail, queueMail } from '../mail/mail.outbox.js';
import { reachUser } from '../users/user-access.js';
import type { User } from '../users/user.entity.js';
import { BackupCode } from './backup-code.entity.js';
import { BackupCodeHasher, maskBackupCode, newBackupCodes } from './backup-codes.js';
import { TotpDevice } from './totp-device.entity.js';
import { matchTotpStep, newTotpSecret, otpauthUri, qrCodeSvg } from './totp.js';
import { TwoFactorFailure } from './two-factor-failure.entity.js';
import type { TwoFactorBackupCodesResult, TwoFactorSetupResult, TwoFactorStatusResult } from './two-factor.types.js';
import { twoFactorNotice } from './two-factor.mail.js';

/** How long a started setup waits for its first code. */
export const SETUP_LIFETIME_MS = 10 * 60 * 1000;
/** Wrong codes allowed in the window before attempts are refused with 429. */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;

const invalidToken = () => new ValidationError('Token is not valid', null, 'token_invalid');

/**
 * TOTP two-factor authentication (RFC 6238) with backup codes. Every code check runs on the
 * locked account row, so concurrent attempts are counted exactly and a code is accepted once.
 */
export class TwoFactorService {
  private readonly hasher = new BackupCodeHasher(config().SECRET_KEY);

  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
  ) {}

  /** A new pending secret (replacing an unconfirmed one); 400 while 2FA is on. */
  async startSetup(actor: Actor, uuid: string): Promise<TwoFactorSetupResult> {
    const { secret, email } = await this.em.transactional(async (em) => {
      const user = await reachUser(em, actor, uuid, true);
      const device = await em.findOne(TotpDevice, { user });
      if (device?.confirmed) throw new ValidationError('Two-factor authentication is already enabled.', null, '2fa_already_enabled');
      const secret = newTotpSecret();
      if (device) em.remove(device);
      await em.flush();
      em.persist(Object.assign(new TotpDevice(), { user, secret_sealed: secretBox().seal(secret) }));
      return { secret, email: user.email };
    });
    const uri = otpauthUri(secret, email);
    return { success: true, secret, otpauth_uri: uri, qr_code: await qrCodeSvg(uri) };
  }

  /** Confirms the pending secret with a current code: 2FA is on, and ten backup codes are shown once. */
  async validateSetup(actor: Actor, uuid: string, token: string | undefined): Promise<TwoFactorBackupCodesResult> {
    const code = requiredToken(token);
    const outcome = await this.em.transactional(async (em) => {
      const user = await reachUser(em, actor, uuid, true);
      await this.refuseWhileLocked(em, user);
      const device = await em.findOne(TotpDevice, { user, confirmed: false });
      if (!device || device.created_at.getTime() + SETUP_LIFETIME_MS <= Date.now()) {
        throw new ValidationError('2FA setup session expired. Please start setup again.', null, 'setup_expired');
      }
      const step = matchTotpStep(secretBox().open(device.secret_sealed), code);
      if (step === null) return this.fail(em, user);
      Object.assign(device, { confirmed: true, confirmed_at: new Date(), last_used_step: String(step) });
      queueMail(em, twoFactorNotice(user.email, 'enabled'));
      return { codes: await this.replaceBackupCodes(em, user) };
    });
    if (!outcome) throw invalidToken();
    await announceMail(this.pubsub);
    return { success: true, backup_codes: outcome.codes };
  }

  /** A step-up check: a current code not used before, or an unused backup code (then spent). */
  async validate(actor: Actor, uuid: string, token: string | undefined): Promise<{ success: boolean }> {
    const code = requiredToken(token);
    const accepted = await this.em.transactional(async (em) => {
      const user = await reachUser(em, actor, uuid, true);
      await this.refuseWhileLocked(em, user);
      const device = await this.enabledDevice(em, user);
      const step = matchTotpStep(secretBox().open(device.secret_sealed), code);
      if (step !== null && step > Number(device.last_used_step ?? -1)) {
        device.last_used_step = String(step);
        return true;
      }
      if (step === null && (await this.spendBackupCode(em, user, code))) return true;
      return this.fail(em, user);
    });
    if (!accepted) throw invalidToken();
    return { success: true };
  }

  async status(actor: Actor, uuid: string): Promise<TwoFactorStatusResult> {
    const user = await reachUser(this.em, actor, uuid);
    const enabled = (await this.em.count(TotpDevice, { user, confirmed: true })) > 0;
    const codes = enabled ? await this.em.find(BackupCode, { user, used_at: null }, { orderBy: { id: 'asc' } }) : [];
    return { is_enabled: enabled, method: enabled ? 'TOTP' : null, backup_codes: codes.map((code) => code.masked), backup_codes_remaining: codes.length };
  }

  /** Ten new backup codes in place of the old ones; 400 unless 2FA is on. */
  async regenerateBackupCodes(actor: Actor, uuid: string): Promise<TwoFactorBackupCodesResult> {
    const codes = await this.em.transactional(async (em) => {
      const user = await reachUser(em, actor, uuid, true);
      await this.enabledDevice(em, user);
      return this.replaceBackupCodes(em, user);
    });
    return { success: true, backup_codes: codes };
  }

  /** Turns 2FA off: the authenticator and every backup code go. */
  async disable(actor: Actor, uuid: string): Promise<{ success: boolean }> {
    const mailed = await this.em.transactional(async (em) => {
      const user = await reachUser(em, actor, uuid, true);
      const removed = await em.nativeDelete(TotpDevice, { user });
      await em.nativeDelete(BackupCode, { user });
      if (removed > 0) queueMail(em, twoFactorNotice(user.email, 'disabled'));
      return removed > 0;
    });
    if (mailed) await announceMail(this.pubsub);
    return { success: true };
  }

  private async enabledDevice(em: EntityManager, user: User): Promise<TotpDevice> {
    const device = await em.findOne(TotpDevice, { user, confirmed: true });
    if (!device) throw new ValidationError('Two-factor authentication is not enabled.', null, '2fa_not_enabled');
    return device;
  }

  /** 429 while the account has MAX_FAILURES wrong codes within the window, until the oldest of them leaves it. */
  private async refuseWhileLocked(em: EntityManager, user: User): Promise<void> {
    const recent = await em.find(
      TwoFactorFailure,
      { user, created_at: { $gt: new Date(Date.now() - FAILURE_WINDOW_MS) } },
      { orderBy: { created_at: 'desc' }, limit: MAX_FAILURES },
    );
    if (recent.length < MAX_FAILURES) return;
    const freeAt = recent[MAX_FAILURES - 1]!.created_at.getTime() + FAILURE_WINDOW_MS;
    throw new ThrottledError(Math.max(1, Math.ceil((freeAt - Date.now()) / 1000)));
  }

  /** Counts a wrong code (committed with the transaction; the caller throws after it). */
  private fail(em: EntityManager, user: User): false {
    em.persist(Object.assign(new TwoFactorFailure(), { user }));
    return false;
  }

  private async spendBackupCode(em: EntityManager, user: User, code: string): Promise<boolean> {
    const unused = await em.find(BackupCode, { user, used_at: null }, { orderBy: { id: 'asc' } });
    const index = this.hasher.match(user.id, code, unused.map((candidate) => candidate.code_hash));
    if (index < 0) return false;
    unused[index]!.used_at = new Date();
    return true;
  }

  private async replaceBackupCodes(em: EntityManager, user: User): Promise<string[]> {
    await em.nativeDelete(BackupCode, { user });
    const codes = newBackupCodes();
    for (const code of codes) em.persist(Object.assign(new BackupCode(), { user, code_hash: this.hasher.hash(user.id, code), masked: maskBackupCode(code) }));
    return codes;
  }
}

function requiredToken(token: string | undefined): string {
  const code = token?.trim();
  if (!code) throw new ValidationError('This field is required.', 'token', 'required');
  if (code.length > 64) throw invalidToken();
  return code;
}
