import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor.js';
import type { Logger } from '../logger.js';
import type { PubSub } from '../pubsub/pubsub.js';

/** What every resolver gets: who calls, a request-scoped EntityManager, a logger and the pub/sub. */
export interface SubgraphContext {
  actor: Actor;
  em: EntityManager;
  log: Logger;
  pubsub: PubSub;
}
