import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { requireUserId } from '../../shared/subgraph/access.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { User } from './user.entity.js';

/** The path's name for the caller's own account. */
export const ME = '@me';

/**
 * The account a `:uuid` path names: the caller's own (`@me` or their uuid), or, for staff, any
 * active user. Anyone else's uuid is a 404, worded like an unknown one. `lock` takes the row for
 * the caller's transaction, so that changes to one account are serialised.
 */
export async function reachUser(em: EntityManager, actor: Actor, uuid: string, lock = false): Promise<User> {
  const callerId = requireUserId(actor);
  // A locked read is fresh: an entity this unit of work loaded earlier must not mask a change.
  const options = lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {};
  if (uuid === ME || uuid === actor.user!.uuid) {
    const self = await em.findOne(User, { id: callerId, is_active: true }, options);
    if (!self) throw new NotFoundError();
    return self;
  }
  if (!isUuid(uuid) || !(await isStaff(em, callerId))) throw new NotFoundError();
  const user = await em.findOne(User, { uuid, is_active: true }, options);
  if (!user) throw new NotFoundError();
  return user;
}

/**
 * For what only the account's owner may do, staff included (enrolling an authenticator, seeing
 * new backup codes): the caller's own id for `@me` or their own uuid, else 404. The row is not
 * loaded: callers lock it themselves, and must check that it is active.
 */
export function ownUserId(actor: Actor, uuid: string): number {
  const callerId = requireUserId(actor);
  if (uuid === ME || uuid === actor.user!.uuid) return callerId;
  throw new NotFoundError();
}

export async function isStaff(em: EntityManager, userId: number): Promise<boolean> {
  return (await em.count(User, { id: userId, is_active: true, is_staff: true })) > 0;
}
