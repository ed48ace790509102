import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { config } from '../../shared/config.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { secretBox } from '../../shared/secrets.js';
import { announceMail, queueMail } from '../mail/mail.outbox.js';
import { ME, ownUserId, reachUser } from '../users/user-access.js';
import { User } from '../users/user.entity.js';
import { BackupCode } from './backup-code.entity.js';
import { lockForCodeCheck, recordAcceptedStep, spendBackupCode, unusedBackupCodes, type CodeCheckState } from './code-check.repository.js';
import { recordFailure, refuseWhileLocked } from '../users/credential-lockout.js';
import { BackupCodeHasher, maskBackupCode, newBackupCodes } from './backup-codes.js';
import { TotpDevice } from './totp-device.entity.js';
import { matchTotpStep, newTotpSecret, otpauthUri, qrCodeSvg } from './totp.js';
import type { TwoFactorBackupCodesResult, TwoFactorSetupResult, TwoFactorStatusResult } from './two-factor.types.js';
import { twoFactorNotice } from './two-factor.mail.js';

/** How long a started setup waits for its first code. */
export const SETUP_LIFETIME_MS = 10 * 60 * 1000;

const invalidToken = () => new ValidationError('Token is not valid', null, 'token_invalid');
const notEnabled = () => new ValidationError('Two-factor authentication is not enabled.', null, '2fa_not_enabled');

/**
 * TOTP two-factor authentication (RFC 6238) with backup codes. Every code check runs on the
 * locked account row, so concurrent attempts are counted exactly and a code is accepted once.
 */
export class TwoFactorService {
  private readonly hasher = backupCodeHasher();

  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
  ) {}

  /** A new pending secret (replacing an unconfirmed one); 400 while 2FA is on. The owner's only. */
  async startSetup(actor: Actor, uuid: string): Promise<TwoFactorSetupResult> {
    const userId = ownUserId(actor, uuid);
    const { secret, email } = await this.em.transactional(async (em) => {
      const user = await reachUser(em, actor, ME, true);
      if (user.id !== userId) throw new NotFoundError();
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
    ownUserId(actor, uuid);
    const code = requiredToken(token);
    const outcome = await this.em.transactional(async (em) => {
      const user = await reachUser(em, actor, ME, true);
      await this.lockForCheck(em, user.id);
      const device = await em.findOne(TotpDevice, { user, confirmed: false });
      if (!device || device.created_at.getTime() + SETUP_LIFETIME_MS <= Date.now()) {
        throw new ValidationError('2FA setup session expired. Please start setup again.', null, 'setup_expired');
      }
      const step = matchTotpStep(secretBox().open(device.secret_sealed), code);
      if (step === null) {
        await recordFailure(em, user.id, 'code');
        return null;
      }
      Object.assign(device, { confirmed: true, confirmed_at: new Date(), last_used_step: String(step) });
      queueMail(em, twoFactorNotice(user.email, 'enabled'));
      return { codes: await this.replaceBackupCodes(em, user) };
    });
    if (!outcome) throw invalidToken();
    await announceMail(this.pubsub);
    return { success: true, backup_codes: outcome.codes };
  }

  /**
   * A step-up check: a current code not used before, or an unused backup code (then spent). The
   * hot path, in plain statements on the locked account row.
   */
  async validate(actor: Actor, uuid: string, token: string | undefined): Promise<{ success: boolean }> {
    const userId = ownUserId(actor, uuid);
    const code = requiredToken(token);
    const accepted = await this.em.transactional((em) => this.acceptCode(em, userId, code));
    if (!accepted) throw invalidToken();
    return { success: true };
  }

  /**
   * On the locked account: a current TOTP code newer than the last accepted, or an unused backup
   * code (spent here). A wrong one is counted (the caller throws after the commit).
   */
  private async acceptCode(em: EntityManager, userId: number, code: string): Promise<boolean> {
    const { device } = await this.lockForCheck(em, userId);
    if (!device) throw notEnabled();
    const step = matchTotpStep(secretBox().open(device.secret_sealed), code);
    if (step !== null && step > (device.last_used_step ?? -1)) {
      await recordAcceptedStep(em, device.id, step);
      return true;
    }
    if (step === null && (await this.spendBackupCode(em, userId, code))) return true;
    await recordFailure(em, userId, 'code');
    return false;
  }

  async status(actor: Actor, uuid: string): Promise<TwoFactorStatusResult> {
    const user = await reachUser(this.em, actor, uuid);
    const enabled = (await this.em.count(TotpDevice, { user, confirmed: true })) > 0;
    const codes = enabled ? await this.em.find(BackupCode, { user, used_at: null }, { orderBy: { id: 'asc' } }) : [];
    return { is_enabled: enabled, method: enabled ? 'TOTP' : null, backup_codes: codes.map((code) => code.masked), backup_codes_remaining: codes.length };
  }

  /**
   * Ten new backup codes in place of the old ones, for a current code (TOTP or backup): whoever
   * holds only the key cannot mint codes that pass the step-up check. The owner's only.
   */
  async regenerateBackupCodes(actor: Actor, uuid: string, token: string | undefined): Promise<TwoFactorBackupCodesResult> {
    const userId = ownUserId(actor, uuid);
    const code = requiredToken(token);
    const codes = await this.em.transactional(async (em) => {
      if (!(await this.acceptCode(em, userId, code))) return null;
      return this.replaceBackupCodes(em, await em.findOneOrFail(User, userId));
    });
    if (!codes) throw invalidToken();
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

  /**
   * Locks the account for a code check and refuses with 429 while it has MAX_FAILURES wrong codes
   * within the window, until the oldest of them leaves it. 404 when the account is gone.
   */
  private async lockForCheck(em: EntityManager, userId: number): Promise<CodeCheckState> {
    const state = await lockForCodeCheck(em, userId);
    if (!state) throw new NotFoundError();
    refuseWhileLocked(state.recent_failures);
    return state;
  }

  private async spendBackupCode(em: EntityManager, userId: number, code: string): Promise<boolean> {
    const unused = await unusedBackupCodes(em, userId);
    const index = this.hasher.match(userId, code, unused.map((candidate) => candidate.code_hash));
    if (index < 0) return false;
    await spendBackupCode(em, unused[index]!.id);
    return true;
  }

  private async replaceBackupCodes(em: EntityManager, user: User): Promise<string[]> {
    await em.nativeDelete(BackupCode, { user });
    const codes = newBackupCodes();
    for (const code of codes) em.persist(Object.assign(new BackupCode(), { user, code_hash: this.hasher.hash(user.id, code), masked: maskBackupCode(code) }));
    return codes;
  }
}

let hasher: BackupCodeHasher | undefined;

/** The process's hasher, keyed by the configured SECRET_KEY. */
function backupCodeHasher(): BackupCodeHasher {
  hasher ??= new BackupCodeHasher(config().SECRET_KEY);
  return hasher;
}

function requiredToken(token: string | undefined): string {
  const code = token?.trim();
  if (!code) throw new ValidationError('This field is required.', 'token', 'required');
  if (code.length > 64) throw invalidToken();
  return code;
}
