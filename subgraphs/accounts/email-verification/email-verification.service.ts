import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { randomBase62, sha256Hex } from '../../shared/crypto.js';
import { ValidationError } from '../../shared/errors.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { isUuid } from '../../shared/validation.js';
import { announceMail, queueMail } from '../mail/mail.outbox.js';
import { normalizedEmail } from '../users/user-profile.rules.js';
import { User } from '../users/user.entity.js';
import { EmailVerificationToken } from './email-verification-token.entity.js';
import type { EmailVerificationResult, RequestEmailVerificationArgs } from './email-verification.inputs.js';
import { verificationMail } from './verification.mail.js';

export const TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Mails per account and hour that anyone may trigger; more requests are answered alike and dropped. */
const MAX_MAILS_PER_HOUR = 3;

const INVALID = 'This verification token is invalid or has expired.';

export class EmailVerificationService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
  ) {}

  /**
   * Queues a verification mail for `address` of `user` in the caller's unit of work; returns
   * false when the account had its share of mails this hour. The caller announces it after commit.
   */
  async queue(em: EntityManager, user: User, address: string): Promise<boolean> {
    const since = new Date(Date.now() - 60 * 60 * 1000);
    if ((await em.count(EmailVerificationToken, { user, created_at: { $gt: since } })) >= MAX_MAILS_PER_HOUR) return false;
    const token = randomBase62(32);
    em.persist(
      Object.assign(new EmailVerificationToken(), { user, email: address, token_hash: sha256Hex(token), expires_at: new Date(Date.now() + TOKEN_LIFETIME_MS) }),
    );
    queueMail(em, verificationMail(user.uuid, address, token));
    return true;
  }

  /**
   * Mails a verification token to the account named by uuid or address (either address of it), or
   * to the caller's. Answers the same whether or not such an account exists, so it tells nobody
   * which addresses have accounts; verified accounts without a pending address get no mail.
   */
  async request(actor: Actor, args: RequestEmailVerificationArgs): Promise<{ success: boolean }> {
    const queued = await this.em.transactional(async (em) => {
      const user = await this.findTarget(em, actor, args);
      if (!user || (user.is_email_verified && !user.pending_email)) return false;
      return this.queue(em, user, user.pending_email ?? user.email);
    });
    if (queued) await announceMail(this.pubsub);
    return { success: true };
  }

  /**
   * Spends a token: the address it was sent to becomes the verified email (a pending address
   * replaces the old one). Wrong, spent and expired tokens are 400s with their own codes.
   */
  async verify(args: { uuid: string; token?: string | null }): Promise<EmailVerificationResult> {
    const token = args.token?.trim();
    if (!token) throw new ValidationError('This field is required.', 'token', 'required');
    return this.em.transactional(async (em) => {
      const row = isUuid(args.uuid)
        ? await em.findOne(EmailVerificationToken, { token_hash: sha256Hex(token), user: { uuid: args.uuid, is_active: true } }, { populate: ['user'] })
        : null;
      if (!row) throw new ValidationError(INVALID, 'token', 'invalid_token');
      if (row.used_at) throw new ValidationError('This verification token has already been used.', 'token', 'token_used');
      if (row.expires_at.getTime() <= Date.now()) throw new ValidationError(INVALID, 'token', 'token_expired');
      const user = await em.findOneOrFail(User, row.user.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      await this.apply(em, user, row.email);
      await em.nativeUpdate(EmailVerificationToken, { user, email: row.email, used_at: null }, { used_at: new Date() });
      return { success: true, token };
    });
  }

  private async apply(em: EntityManager, user: User, address: string): Promise<void> {
    if (address === user.pending_email) {
      if ((await em.count(User, { email: address, id: { $ne: user.id } })) > 0) {
        throw new ValidationError('There is already an account with this email address.', 'email', 'email_taken');
      }
      Object.assign(user, { email: address, pending_email: null, is_email_verified: true });
    } else if (address === user.email) {
      user.is_email_verified = true;
    } else {
      // The address changed (or its change was cancelled) since the mail went out.
      throw new ValidationError(INVALID, 'token', 'invalid_token');
    }
  }

  private async findTarget(em: EntityManager, actor: Actor, args: RequestEmailVerificationArgs): Promise<User | null> {
    if (args.uuid != null) return isUuid(args.uuid) ? em.findOne(User, { uuid: args.uuid, is_active: true }) : null;
    if (args.email != null) {
      const email = normalizedEmail(args.email);
      return em.findOne(User, { $or: [{ email }, { pending_email: email }], is_active: true });
    }
    if (!actor.user) throw new ValidationError('Give the uuid or the email address of the account.', 'uuid', 'required');
    return em.findOne(User, { id: actor.user.id, is_active: true });
  }
}
