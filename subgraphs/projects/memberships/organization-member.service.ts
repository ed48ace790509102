import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { requireOrganization, requireUserId } from '../../shared/subgraph/access.js';
import { MembershipLevel, type Actor } from '../../shared/auth/actor.js';
import { KEY_CHANGES_TOPIC, userKeysChange } from '../../shared/auth/key-changes.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import { isUuid } from '../../shared/validation.js';
import { Organization } from '../organizations/organization.entity.js';
import { Membership } from './membership.entity.js';
import type { OrganizationMemberRecord } from './organization-member.record.js';
import type { ListOrganizationMembersArgs, OrganizationMemberArgs, UpdateOrganizationMemberArgs } from './organization-member.inputs.js';
import { findPage } from '../../shared/db/find-page.js';

const LEVELS: readonly number[] = Object.values(MembershipLevel);
const LAST_OWNER = 'An organization must keep at least one owner.';

/**
 * Who belongs to an organization and at what level, with PostHog's rules: members see the list;
 * admins change and remove others up to their own level; nobody changes their own level; anyone
 * may leave; and an organization always keeps an owner.
 */
export class OrganizationMemberService {
  /** With a pub/sub, a changed or removed member's keys are announced: routers drop what they cached of them. */
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub?: PubSub,
  ) {}

  /** The members, as PostHog orders them: by level, then the latest to join first. */
  async list(actor: Actor, args: ListOrganizationMembersArgs): Promise<Page<OrganizationMemberRecord>> {
    if (!isUuid(args.organization_id)) throw new NotFoundError();
    requireOrganization(actor, args.organization_id);
    const window = pageWindow(args);
    const [members, count] = await findPage(
      this.em,
      Membership,
      { organization: args.organization_id },
      { orderBy: { level: 'asc', created_at: 'desc', id: 'asc' }, ...window },
    );
    return toPage(members.map(memberRecord), count, window);
  }

  async update(actor: Actor, args: UpdateOrganizationMemberArgs): Promise<OrganizationMemberRecord> {
    return this.change(actor, args, (member, callerLevel) => {
      if (!LEVELS.includes(args.level)) throw new ValidationError(`"${args.level}" is not a valid choice.`, 'level', 'invalid_choice');
      if (member.user_id === actor.user?.id) throw new ForbiddenError("You can't change your own access level.");
      mayEditOthers(callerLevel, member);
      if (args.level > callerLevel) throw new ForbiddenError('You can only change access level of others to lower or equal to your current one.');
      member.level = args.level;
    });
  }

  /** Removes a member; a member removing themself leaves the organization. */
  async remove(actor: Actor, args: OrganizationMemberArgs): Promise<void> {
    await this.change(actor, args, (member, callerLevel, em) => {
      if (member.user_id !== actor.user?.id) mayEditOthers(callerLevel, member);
      em.remove(member);
    });
  }

  /**
   * Runs a change to one membership with the organization's row locked, so that concurrent
   * changes are serialised; the caller's level is read under the lock (not from the actor, which
   * may be a second old), and the change is undone when it would leave no owner.
   */
  private async change(
    actor: Actor,
    args: OrganizationMemberArgs,
    apply: (member: Membership, callerLevel: number, em: EntityManager) => void,
  ): Promise<OrganizationMemberRecord> {
    if (!isUuid(args.organization_id)) throw new NotFoundError();
    requireOrganization(actor, args.organization_id);
    const callerId = requireUserId(actor);
    const record = await this.em.transactional(async (em) => {
      await em.findOneOrFail(Organization, { id: args.organization_id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const [caller, member] = await Promise.all([
        em.findOne(Membership, { organization: args.organization_id, user_id: callerId }),
        isUuid(args.user_uuid) ? em.findOne(Membership, { organization: args.organization_id, user_uuid: args.user_uuid }) : null,
      ]);
      if (!caller) throw new ForbiddenError();
      if (!member) throw new NotFoundError();
      apply(member, caller.level, em);
      await em.flush();
      const owners = await em.count(Membership, { organization: args.organization_id, level: MembershipLevel.owner });
      if (owners === 0) throw new ValidationError(LAST_OWNER, 'level', 'last_owner');
      return memberRecord(member);
    });
    // After the commit: a router that looks the member's key up again reads the change.
    await this.pubsub?.publish(KEY_CHANGES_TOPIC, userKeysChange(record.user.id));
    return record;
  }
}

function mayEditOthers(callerLevel: number, member: Membership): void {
  if (callerLevel < MembershipLevel.admin) throw new ForbiddenError('You can only edit others if you are an admin.');
  if (member.level > callerLevel) throw new ForbiddenError('You can only edit others with level lower or equal to you.');
}

function memberRecord(member: Membership): OrganizationMemberRecord {
  return { id: member.id, user: { id: member.user_id }, level: member.level, joined_at: member.created_at, updated_at: member.updated_at };
}
