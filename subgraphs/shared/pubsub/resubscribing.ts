import { setTimeout as delay } from 'node:timers/promises';
import { EventsLostError } from '../errors.js';
import { pushIterator, type Envelope, type PubSub } from './pubsub.js';

/** How often a follower that lost its subscription looks whether the pub/sub works again. */
const RETRY_MS = 1000;

/**
 * A topic followed by the platform itself (a cache's invalidations, a worker's wake-ups) for as
 * long as the caller wants, across losses: where a client's subscription ends with `events_lost`,
 * this one subscribes again once the pub/sub works, and calls `lost` when the new subscription
 * hears events, so that the follower drops what an event missed meanwhile could have changed.
 * It ends when the caller returns it, or when the pub/sub closes.
 */
export function resubscribing<T>(pubsub: PubSub, topic: string, lost: () => void): AsyncIterableIterator<Envelope<T>> {
  let current: AsyncIterableIterator<Envelope<T>> | undefined;
  let stopped = false;
  const { iterator, push, end } = pushIterator<Envelope<T>>(() => {
    stopped = true;
    void current?.return?.();
  });
  void (async () => {
    let recovering = false;
    while (!stopped) {
      current = pubsub.subscribe<T>(topic);
      try {
        if (recovering) {
          await pubsub.ready();
          lost();
        }
        for await (const envelope of current) push(envelope);
        return;
      } catch (error) {
        if (!(error instanceof EventsLostError)) throw error;
        lost();
        recovering = true;
      }
      do await delay(RETRY_MS, undefined, { ref: false });
      while (!stopped && !pubsub.healthy());
    }
  })()
    .catch(() => undefined)
    .finally(end);
  return iterator;
}
