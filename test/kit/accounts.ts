import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../subgraphs/shared/auth/actor.js';
import { User } from '../../subgraphs/accounts/users/user.entity.js';

/**
 * A user of the accounts subgraph's own (in no organization; its password is never checked) and
 * the actor of a `*` key of theirs: what the accounts services' tests act as.
 */
export async function newUser(em: EntityManager, label: string): Promise<{ user: User; actor: Actor }> {
  const user = Object.assign(new User(), { email: `${label}-${randomBytes(5).toString('hex')}@example.test`, password_hash: 'scrypt$unused' });
  await em.persistAndFlush(user);
  return { user, actor: { kind: 'personal_api_key', user: { id: user.id, uuid: user.uuid }, scopes: ['*'], organizations: {} } };
}
