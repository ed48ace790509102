import type { Actor } from '../subgraphs/shared/auth/actor.js';

/** What the gateway adds to each operation's context. */
export interface RouterContext {
  /** The caller's Authorization value, kept to re-check the key during long subscriptions. */
  authorization?: string;
  actor: Actor;
  actorHeader: string;
  actorSignedAt: number;
  /**
   * The request's id on the POST fast path, where `useRequestId` (which keeps its own by request,
   * and sends it on each subgraph fetch) does not run: sent on each subgraph fetch the same way.
   */
  requestId?: string;
}
