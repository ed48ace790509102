import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { requireUserId } from '../../shared/auth/access.js';
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
  const options = lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {};
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
 * The id of the account a `:uuid` path names, under the same rules as reachUser, without loading
 * the caller's own row (hot paths lock it themselves, and then must check that it is active).
 */
export async function reachUserId(em: EntityManager, actor: Actor, uuid: string): Promise<number> {
  const callerId = requireUserId(actor);
  if (uuid === ME || uuid === actor.user!.uuid) return callerId;
  return (await reachUser(em, actor, uuid)).id;
}

export async function isStaff(em: EntityManager, userId: number): Promise<boolean> {
  return (await em.count(User, { id: userId, is_active: true, is_staff: true })) > 0;
}
