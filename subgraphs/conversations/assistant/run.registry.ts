import type { PubSub } from '../../shared/pubsub/pubsub.js';

/** What the registry needs of a run. */
export interface LocalRun {
  readonly conversationId: string;
  /** Stops the run (the provider call is aborted) and resolves once it has ended. */
  stop(reason: 'canceled' | 'shutdown'): Promise<void>;
}

/**
 * The runs this process is carrying out, per platform instance: a platform is known by its
 * pub/sub (tests run several in one process), and its worker stops them on shutdown.
 */
const registries = new WeakMap<PubSub, Set<LocalRun>>();

export function localRuns(pubsub: PubSub): Set<LocalRun> {
  let runs = registries.get(pubsub);
  if (!runs) {
    runs = new Set();
    registries.set(pubsub, runs);
  }
  return runs;
}
