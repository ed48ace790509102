import { LockMode, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { randomBase62, sha256Hex } from '../../shared/crypto.js';
import { ThrottledError, ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { isUuid } from '../../shared/validation.js';
import { announceMail, queueMail } from '../mail/mail.outbox.js';
import { normalizedEmail } from '../users/user-profile.rules.js';
import { User } from '../users/user.entity.js';
import { EmailVerificationToken, type TokenOrigin } from './email-verification-token.entity.js';
import type { EmailVerificationResult, RequestEmailVerificationArgs } from './email-verification.inputs.js';
import { verificationMail } from './verification.mail.js';

export const TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
/**
 * Mails per account and hour: anyone may trigger `request` mails (by uuid or address), so few;
 * the account's own email changes have a quota of their own, which strangers cannot use up.
 */
export const HOURLY_QUOTA: Record<TokenOrigin, number> = { request: 3, change: 5 };

const INVALID = 'This verification token is invalid or has expired.';

type Target = { uuid: string } | { email: string } | { userId: number };

export class EmailVerificationService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
    private readonly log?: Logger,
  ) {}

  /**
   * Queues a verification mail for `address` of the (locked) `user` in the caller's unit of work;
   * returns false when the account had its quota of such mails this hour. The caller announces
   * the mail after its commit.
   */
  async queue(em: EntityManager, user: User, address: string, origin: TokenOrigin): Promise<boolean> {
    const since = new Date(Date.now() - 60 * 60 * 1000);
    if ((await em.count(EmailVerificationToken, { user, origin, created_at: { $gt: since } })) >= HOURLY_QUOTA[origin]) return false;
    const token = randomBase62(32);
    em.persist(
      Object.assign(new EmailVerificationToken(), {
        user,
        email: address,
        origin,
        token_hash: sha256Hex(token),
        expires_at: new Date(Date.now() + TOKEN_LIFETIME_MS),
      }),
    );
    queueMail(em, verificationMail(user.uuid, address, token));
    return true;
  }

  /** For an email change by the account itself: a 429 once its own quota is spent, never a silent drop. */
  async queueChange(em: EntityManager, user: User, address: string): Promise<void> {
    if (!(await this.queue(em, user, address, 'change'))) throw new ThrottledError(60 * 60);
  }

  /**
   * Mails a verification token to the account named by uuid or address (either address of it), or
   * to the caller's. The lookup and the mail happen after the answer, which is the same whether or
   * not the account exists: neither the body nor the time it takes tells which addresses have
   * accounts. Verified accounts without a pending address get no mail.
   */
  async request(actor: Actor, args: RequestEmailVerificationArgs): Promise<{ success: boolean }> {
    const target = targetOf(actor, args);
    void this.mailTarget(target).catch((error: unknown) => this.log?.error({ err: error }, 'verification mail request failed'));
    return { success: true };
  }

  private async mailTarget(target: Target): Promise<void> {
    const em = this.em.fork();
    const queued = await em.transactional(async (tx) => {
      const where = 'uuid' in target ? { uuid: target.uuid } : 'email' in target ? { $or: [{ email: target.email }, { pending_email: target.email }] } : { id: target.userId };
      // Locked: concurrent requests count the quota one after another.
      const user = await tx.findOne(User, { ...where, is_active: true }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!user || (user.is_email_verified && !user.pending_email)) return false;
      return this.queue(tx, user, user.pending_email ?? user.email, 'request');
    });
    if (queued) await announceMail(this.pubsub);
  }

  /**
   * Spends a token: the address it was sent to becomes the verified email (a pending address
   * replaces the old one). Wrong, spent and expired tokens are 400s with their own codes.
   */
  async verify(args: { uuid: string; token?: string | null }): Promise<EmailVerificationResult> {
    const token = args.token?.trim();
    if (!token) throw new ValidationError('This field is required.', 'token', 'required');
    try {
      return await this.em.transactional(async (em) => {
        // The account first, locked and read fresh: a cancel or change committed meanwhile is seen.
        const user = isUuid(args.uuid)
          ? await em.findOne(User, { uuid: args.uuid, is_active: true }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
          : null;
        const row = user ? await em.findOne(EmailVerificationToken, { token_hash: sha256Hex(token), user }) : null;
        if (!user || !row) throw new ValidationError(INVALID, 'token', 'invalid_token');
        if (row.used_at) throw new ValidationError('This verification token has already been used.', 'token', 'token_used');
        if (row.expires_at.getTime() <= Date.now()) throw new ValidationError(INVALID, 'token', 'token_expired');
        await this.apply(em, user, row.email);
        await em.nativeUpdate(EmailVerificationToken, { user, email: row.email, used_at: null }, { used_at: new Date() });
        return { success: true, token };
      });
    } catch (error) {
      // Two accounts verifying the same new address at once: the second finds it taken.
      if (error instanceof UniqueConstraintViolationException) throw emailTaken();
      throw error;
    }
  }

  private async apply(em: EntityManager, user: User, address: string): Promise<void> {
    if (address === user.pending_email) {
      if ((await em.count(User, { email: address, id: { $ne: user.id } })) > 0) throw emailTaken();
      Object.assign(user, { email: address, pending_email: null, is_email_verified: true });
    } else if (address === user.email) {
      user.is_email_verified = true;
    } else {
      // The address changed (or its change was cancelled) since the mail went out.
      throw new ValidationError(INVALID, 'token', 'invalid_token');
    }
  }
}

export function emailTaken(): ValidationError {
  return new ValidationError('There is already an account with this email address.', 'email', 'email_taken');
}

/** Who a request names: by uuid, by address, or the caller; malformed input is a 400 before anything is looked up. */
function targetOf(actor: Actor, args: RequestEmailVerificationArgs): Target {
  if (args.uuid != null) return { uuid: isUuid(args.uuid) ? args.uuid : '00000000-0000-0000-0000-000000000000' };
  if (args.email != null) return { email: normalizedEmail(args.email) };
  if (!actor.user) throw new ValidationError('Give the uuid or the email address of the account.', 'uuid', 'required');
  return { userId: actor.user.id };
}
