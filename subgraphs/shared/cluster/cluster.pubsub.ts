import { MemoryEventLog, payloadJson, TopicListeners, TopicSequences } from '../pubsub/memory.pubsub.js';
import type { Envelope, EventLog, PubSub } from '../pubsub/pubsub.js';
import type { Logger } from '../logger.js';
import { callPrimary, onBroadcast, primaryConnected, type ClusterHub, type PrimaryServices } from './cluster.ipc.js';

const CHANNEL = 'pubsub';

interface Delivery {
  topic: string;
  message: string;
}

/**
 * The pub/sub of a cluster worker without REDIS_URL: events, their sequence numbers and the replay
 * logs live in the primary, which numbers each event and sends it to every worker in one order,
 * so a subscriber on any worker sees what any worker published, in order.
 */
export class ClusterPubSub implements PubSub {
  private readonly subscribers = new TopicListeners();
  private readonly unlisten: () => void;
  readonly replay: EventLog = {
    nextSequence: (counter, ttlSeconds) => callPrimary('replay.nextSequence', counter, ttlSeconds),
    append: (log, entry, ttlSeconds) => callPrimary('replay.append', log, entry, ttlSeconds),
    read: (log) => callPrimary('replay.read', log),
  };

  constructor(private readonly log: Logger) {
    this.unlisten = onBroadcast(CHANNEL, (data) => {
      const { topic, message } = data as Delivery;
      this.subscribers.deliver(topic, message);
    });
  }

  async publish(topic: string, payload: unknown): Promise<number> {
    try {
      return await callPrimary<number>('pubsub.publish', topic, payloadJson(payload));
    } catch (error) {
      this.log.warn({ err: error, topic }, 'event not published: the cluster primary did not answer');
      return 0;
    }
  }

  subscribe<T>(topic: string): AsyncIterableIterator<Envelope<T>> {
    return this.subscribers.subscribe<T>(topic);
  }

  healthy(): boolean {
    return primaryConnected();
  }

  /** Every event goes to every worker, so a subscription receives from the moment it is made. */
  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.unlisten();
    this.subscribers.clear();
  }
}

/** The primary's side of {@link ClusterPubSub}: one numbering per topic, and the replay logs. */
export function pubSubServices(hub: ClusterHub): PrimaryServices {
  const sequences = new TopicSequences();
  const replay = new MemoryEventLog();
  return {
    'pubsub.publish': (topic: string, payload: string) => {
      const { sequence, message } = sequences.envelope(topic, payload);
      hub.broadcast(CHANNEL, { topic, message } satisfies Delivery);
      return sequence;
    },
    'replay.nextSequence': (counter: string, ttlSeconds: number) => replay.nextSequence(counter, ttlSeconds),
    'replay.append': (log: string, entry: string, ttlSeconds: number) => replay.append(log, entry, ttlSeconds),
    'replay.read': (log: string) => replay.read(log),
  };
}
