import type { EntityManager } from '@mikro-orm/postgresql';
import { requireUserId } from '../../shared/subgraph/access.js';
import type { Actor } from '../../shared/auth/actor.js';
import { ForbiddenError, NotFoundError } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { projectsFacade } from '../../projects/facade.js';
import { Conversation } from './conversation.entity.js';

export const OTHER_USERS_CONVERSATION = "Cannot access other users' conversations";

/**
 * A conversation of the environment that the actor owns. Another environment's (or no such id) is
 * a 404; another user's is a 404 too, or PostHog's 403 where its queue answers so (`otherUser`).
 */
export async function ownConversation(
  em: EntityManager,
  actor: Actor,
  environmentId: number,
  id: string,
  otherUser: 'not_found' | 'forbidden' = 'not_found',
): Promise<Conversation> {
  const environment = await projectsFacade.reachEnvironment(em, actor, environmentId);
  const userId = requireUserId(actor);
  const conversation = isUuid(id) ? await em.findOne(Conversation, { id: id.toLowerCase(), environment_id: environment.id }) : null;
  if (!conversation) throw new NotFoundError();
  if (conversation.user_id !== userId) throw otherUser === 'forbidden' ? new ForbiddenError(OTHER_USERS_CONVERSATION) : new NotFoundError();
  return conversation;
}

/**
 * A conversation named by id alone (the stream subscription): its environment must be one the
 * actor reaches and the actor its owner; every refusal reads as "not found", so that nothing
 * tells another tenant whether the id exists.
 */
export async function ownConversationById(em: EntityManager, actor: Actor, id: string): Promise<Conversation> {
  const conversation = isUuid(id) ? await em.findOne(Conversation, { id: id.toLowerCase() }) : null;
  if (!conversation || conversation.user_id !== actor.user?.id) throw new NotFoundError();
  await projectsFacade.reachEnvironment(em, actor, conversation.environment_id).catch(() => {
    throw new NotFoundError();
  });
  return conversation;
}
