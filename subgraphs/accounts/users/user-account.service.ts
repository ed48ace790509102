import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { ConflictError, ForbiddenError, ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { projectsFacade } from '../../projects/facade.js';
import { EmailVerificationToken } from '../email-verification/email-verification-token.entity.js';
import { emailTaken, EmailVerificationService } from '../email-verification/email-verification.service.js';
import { announceMail } from '../mail/mail.outbox.js';
import { TotpDevice } from '../two-factor/totp-device.entity.js';
import { recentFailures, recordFailure, refuseWhileLocked } from './credential-lockout.js';
import { hashPassword, verifyPassword } from './password.js';
import type { CurrentPlacementRecord } from './current-placement.record.js';
import type { UpdateUserArgs } from './user-account.inputs.js';
import type { UserAccountRecord } from './user-account.record.js';
import { isStaff, ME, reachUser } from './user-access.js';
import { EVENTS_COLUMN_DEFAULT, newPassword, normalizedEmail, NOTIFICATION_DEFAULTS, profilePatch } from './user-profile.rules.js';
import { User } from './user.entity.js';

/** A user's own account: reading it, changing it, and the rules of each change. */
export class UserAccountService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
    private readonly log: Logger,
  ) {}

  async get(actor: Actor, uuid: string): Promise<UserAccountRecord> {
    return this.record(this.em, await reachUser(this.em, actor, uuid));
  }

  /** The caller's current organization and environment, falling back as the account shows them. */
  async currentPlacement(actor: Actor): Promise<CurrentPlacementRecord> {
    const user = await reachUser(this.em, actor, ME);
    const current = await projectsFacade.currentPlacement(this.em, user.id, { organization_id: user.current_organization_id, team_id: user.current_team_id });
    return { organization_id: current.organization_id, project_id: current.project_id, environment_id: current.team_id };
  }

  /**
   * Applies a PATCH in one transaction on the locked account: profile fields, staff flag (staff
   * only), current organization or environment (ones the user belongs to), password (needs the
   * current one; keys keep working) and email (kept pending and verified by mail).
   */
  async update(actor: Actor, args: UpdateUserArgs): Promise<UserAccountRecord> {
    // The slow part of a password change (two scrypt runs) happens before the account is locked.
    const password = args.password != null ? await this.checkPasswordChange(await reachUser(this.em, actor, args.uuid), args) : undefined;
    const outcome = await this.em.transactional(async (em) => {
      const user = await reachUser(em, actor, args.uuid, true);
      Object.assign(user, profilePatch(args, user));
      if (args.is_staff != null && args.is_staff !== user.is_staff) {
        if (!(await isStaff(em, actor.user!.id))) throw new ForbiddenError('Only staff can change is_staff.');
        user.is_staff = args.is_staff;
      }
      await this.placeUser(em, user, args);
      if (password) {
        if (user.password_hash !== password.checkedAgainst) throw new ConflictError('The password changed meanwhile; try again.', 'password_changed');
        Object.assign(user, { password_hash: password.hash, password_changed_at: new Date() });
      }
      const mailed = args.email != null && (await this.changeEmail(em, user, args.email));
      return { user, mailed, record: await this.record(em, user) };
    });
    if (password) this.log.info({ user_id: outcome.user.id, by_user_id: actor.user!.id }, 'password changed');
    if (outcome.mailed) await announceMail(this.pubsub);
    return outcome.record;
  }

  /** Drops the caller's pending address (400 when there is none); its mailed tokens die with it. */
  async cancelEmailChange(actor: Actor): Promise<UserAccountRecord> {
    return this.em.transactional(async (em) => {
      const user = await reachUser(em, actor, '@me', true);
      if (!user.pending_email) {
        throw new ValidationError('No active email change requests found.', null, 'email_change_request_not_found');
      }
      await em.nativeUpdate(EmailVerificationToken, { user, email: user.pending_email, used_at: null }, { used_at: new Date() });
      user.pending_email = null;
      return this.record(em, user);
    });
  }

  private async placeUser(em: EntityManager, user: User, args: UpdateUserArgs): Promise<void> {
    const placement =
      args.set_current_team != null
        ? await projectsFacade.chooseCurrentTeam(em, user.id, args.set_current_team)
        : args.set_current_organization != null
          ? await projectsFacade.chooseCurrentOrganization(em, user.id, args.set_current_organization)
          : undefined;
    if (placement) Object.assign(user, { current_organization_id: placement.organization_id, current_team_id: placement.team_id });
  }

  /**
   * The new password's hash, once the current one is proved: wrong current passwords count
   * towards a lock-out (429 after 5 in 15 minutes), as wrong two-factor codes do.
   */
  private async checkPasswordChange(user: User, args: UpdateUserArgs): Promise<{ hash: string; checkedAgainst: string }> {
    const password = newPassword(args.password!);
    if (!args.current_password) throw new ValidationError('This field is required when changing the password.', 'current_password', 'required');
    refuseWhileLocked(await recentFailures(this.em, user.id, 'password'));
    if (!(await verifyPassword(args.current_password, user.password_hash))) {
      await recordFailure(this.em, user.id, 'password');
      throw new ValidationError('Your current password was entered incorrectly. Please enter it again.', 'current_password', 'invalid_password');
    }
    return { hash: await hashPassword(password), checkedAgainst: user.password_hash };
  }

  /** A new address waits as `pending_email` while the old one stays in use; returns whether a mail was queued. */
  private async changeEmail(em: EntityManager, user: User, given: string): Promise<boolean> {
    const email = normalizedEmail(given);
    if (email === user.email) {
      user.pending_email = null;
      return false;
    }
    if ((await em.count(User, { email, id: { $ne: user.id } })) > 0) throw emailTaken();
    if (email === user.pending_email) return false;
    user.pending_email = email;
    await new EmailVerificationService(em, this.pubsub).queueChange(em, user, email);
    return true;
  }

  private async record(em: EntityManager, user: User): Promise<UserAccountRecord> {
    const is_2fa_enabled = (await em.count(TotpDevice, { user, confirmed: true })) > 0;
    return {
      id: user.id,
      uuid: user.uuid,
      distinct_id: user.distinct_id,
      first_name: user.first_name,
      last_name: user.last_name,
      email: user.email,
      pending_email: user.pending_email,
      is_email_verified: user.is_email_verified,
      is_staff: user.is_staff,
      is_2fa_enabled,
      has_password: true,
      anonymize_data: user.anonymize_data,
      notification_settings: { ...NOTIFICATION_DEFAULTS, ...user.notification_settings },
      toolbar_mode: user.toolbar_mode,
      theme_mode: user.theme_mode,
      events_column_config: user.events_column_config ?? EVENTS_COLUMN_DEFAULT,
      has_seen_product_intro_for: user.has_seen_product_intro_for ?? {},
      hedgehog_config: user.hedgehog_config,
      role_at_organization: user.role_at_organization,
      date_joined: user.created_at,
      current_organization_id: user.current_organization_id,
      current_team_id: user.current_team_id,
    };
  }
}
