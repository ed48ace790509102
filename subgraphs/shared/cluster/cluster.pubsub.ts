import { MemoryEventLog, payloadJson, TopicListeners } from '../pubsub/memory.pubsub.js';
import { LOST_NOTICE, type Envelope, type EventLog, type PubSub } from '../pubsub/pubsub.js';
import type { SequenceFloors } from '../pubsub/sequence-floors.js';
import { TopicSequences } from '../pubsub/topic-sequences.js';
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
    const unlisten = onBroadcast(CHANNEL, (data) => {
      const { topic, message } = data as Delivery;
      this.subscribers.deliver(topic, message);
    });
    // A worker cut off from its primary hears no event again: its subscribers must not wait in silence.
    const cut = () => this.subscribers.loseAll();
    process.on('disconnect', cut);
    this.unlisten = () => {
      unlisten();
      process.off('disconnect', cut);
    };
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
    const events = this.subscribers.subscribe<T>(topic);
    if (!primaryConnected()) this.subscribers.loseAll();
    return events;
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

/**
 * The primary's side of {@link ClusterPubSub}: one numbering per topic (above the `floors` of the
 * platform's previous run, when given), and the replay logs.
 */
export function pubSubServices(hub: ClusterHub, floors?: Promise<SequenceFloors>): PrimaryServices {
  const sequences = new TopicSequences(floors);
  const replay = new MemoryEventLog();
  const deliver = (topic: string) => (message: string) => hub.broadcast(CHANNEL, { topic, message } satisfies Delivery);
  return {
    'pubsub.publish': (topic: string, payload: string) =>
      sequences.publish(topic, payload, deliver(topic)).catch(() => {
        deliver(topic)(LOST_NOTICE);
        return 0;
      }),
    'replay.nextSequence': (counter: string, ttlSeconds: number) => replay.nextSequence(counter, ttlSeconds),
    'replay.append': (log: string, entry: string, ttlSeconds: number) => replay.append(log, entry, ttlSeconds),
    'replay.read': (log: string) => replay.read(log),
  };
}
