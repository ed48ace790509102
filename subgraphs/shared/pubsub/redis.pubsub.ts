import { createClient } from 'redis';
import type { Logger } from '../logger.js';
import { EventsLostError } from '../errors.js';
import { deliverTo, payloadJson, type TopicListener } from './memory.pubsub.js';
import { connectAnswering } from './redis.connect.js';
import { SequencedPublisher } from './redis.sequence.js';
import { LOST_NOTICE, pushIterator, type Envelope, type EventLog, type KeyValueStore, type PubSub } from './pubsub.js';
import type { SequenceFloors } from './sequence-floors.js';

type RedisClient = ReturnType<typeof createClient>;

const INITIAL_ATTEMPTS = 3;
/** How long closing waits for Redis to answer the commands already sent before it drops the connection. */
const DRAIN_DEADLINE_MS = 2000;

/** This process's listeners of a channel, and the one listener given to Redis's client for them all. */
interface ChannelListeners {
  own: Set<TopicListener>;
  dispatch: (message: string) => void;
}

/**
 * Redis pub/sub across processes. Publishing and subscribing use separate connections (a
 * subscribed connection can do nothing else); every channel and counter key carries `prefix` so
 * that deployments sharing a Redis never hear each other.
 *
 * Redis delivers an event only to connections subscribed when it is published, and keeps none for
 * later, so no event is lost in silence: when the subscribing connection drops, every subscription
 * it served ends with `events_lost`; when a publish fails, the topic's subscribers (in any process)
 * are sent the lost notice, which ends them too, before this process publishes on it again.
 */
export class RedisPubSub implements PubSub {
  private readonly listeners = new Map<string, ChannelListeners>();
  private readonly pending = new Set<Promise<unknown>>();
  /** Topics whose publish failed and whose subscribers have not yet been told. */
  private readonly unsent = new Set<string>();
  private readonly sequenced: SequencedPublisher;
  readonly store: KeyValueStore;
  readonly replay: EventLog;

  private constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly prefix: string,
    private readonly log?: Logger,
    private readonly floors?: SequenceFloors,
  ) {
    this.sequenced = new SequencedPublisher(publisher, prefix, floors);
    // Redis forgets a dropped connection's subscriptions, and what was published until it is back.
    for (const event of ['error', 'reconnecting', 'end']) subscriber.on(event, () => this.loseAll());
    publisher.on('ready', () => void this.announceLosses());
    const key = (name: string) => `${prefix}kv:${name}`;
    this.store = {
      get: (name) => publisher.get(key(name)),
      getMany: async (names) => (names.length === 0 ? [] : publisher.mGet(names.map(key))),
      set: async (name, value, ttlSeconds) => {
        await publisher.set(key(name), value, { EX: ttlSeconds });
      },
    };
    const logKey = (name: string) => `${prefix}log:${name}`;
    const counterKey = (name: string) => `${prefix}counter:${name}`;
    this.replay = {
      nextSequence: async (counter, ttlSeconds) => {
        const [value] = await publisher.multi().incr(counterKey(counter)).expire(counterKey(counter), ttlSeconds).exec();
        return Number(value);
      },
      append: async (name, entry, ttlSeconds) => {
        await publisher.multi().rPush(logKey(name), entry).expire(logKey(name), ttlSeconds).exec();
      },
      read: (name) => publisher.lRange(logKey(name), 0, -1),
    };
  }

  /**
   * Connects both connections, giving up after a few attempts (a wrong REDIS_URL stops start-up);
   * once connected, a lost connection is retried for ever while publishing fails fast.
   */
  static async connect(url: string, prefix: string, log?: Logger, floors?: SequenceFloors): Promise<RedisPubSub> {
    if (!prefix) throw new Error('RedisPubSub needs a channel prefix');
    let connected = false;
    let lastError: Error | undefined;
    const options = {
      url,
      // Commands are not queued while disconnected: a publish fails at once instead of hanging.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 5000,
        reconnectStrategy: (retries: number, cause: Error) => {
          lastError = cause;
          if (!connected && retries >= INITIAL_ATTEMPTS) return cause;
          return Math.min(100 * 2 ** retries, 3000);
        },
      },
    };
    const publisher = createClient(options);
    const subscriber = createClient(options);
    for (const client of [publisher, subscriber]) {
      // Before the first connection, a failure is start-up's one line (REDIS_URL), not a log record per try.
      client.on('error', (error: Error) => connected && log?.warn({ err: error }, 'redis connection error'));
    }
    try {
      await connectAnswering([publisher, subscriber]);
    } catch (error) {
      throw new Error(`cannot connect to Redis: ${(lastError ?? (error as Error)).message}`);
    }
    connected = true;
    return new RedisPubSub(publisher, subscriber, prefix, log, floors);
  }

  /**
   * Numbers and publishes the event (see {@link SequencedPublisher}). A topic whose earlier
   * publish failed is first sent the lost notice, so that no subscriber hears this event after a
   * gap without being told.
   */
  async publish(topic: string, payload: unknown): Promise<number> {
    try {
      if (this.unsent.has(topic)) await this.announceLoss(topic);
      return await this.sequenced.publish(topic, payloadJson(payload));
    } catch (error) {
      this.unsent.add(topic);
      this.log?.error({ err: error, topic }, 'event not published: its subscribers end with events_lost');
      if (this.publisher.isReady) void this.announceLosses();
      return 0;
    }
  }

  private async announceLoss(topic: string): Promise<void> {
    await this.publisher.publish(this.prefix + topic, LOST_NOTICE);
    this.unsent.delete(topic);
  }

  /** Sends the lost notice to each topic whose publish failed (once Redis can be reached again). */
  private async announceLosses(): Promise<void> {
    for (const topic of [...this.unsent]) await this.announceLoss(topic).catch(() => undefined);
  }

  /** Ends every subscription of this process with `events_lost`. */
  private loseAll(): void {
    for (const { own } of [...this.listeners.values()]) for (const listener of [...own]) listener.lost();
  }

  healthy(): boolean {
    return this.publisher.isReady && this.subscriber.isReady;
  }

  subscribe<T>(topic: string): AsyncIterableIterator<Envelope<T>> {
    const channel = this.prefix + topic;
    let entry = this.listeners.get(channel);
    const fresh = !entry;
    if (!entry) {
      const own = new Set<TopicListener>();
      entry = { own, dispatch: (message) => [...own].forEach((listener) => deliverTo(listener, message)) };
      this.listeners.set(channel, entry);
    }
    const { own, dispatch } = entry;
    const { iterator, push, fail } = pushIterator<Envelope<T>>(() => {
      own.delete(listener);
      if (own.size === 0 && this.listeners.get(channel) === entry) {
        this.listeners.delete(channel);
        // Named with its listener: the client then marks the channel as leaving, so a subscribe
        // before Redis confirms the UNSUBSCRIBE sends its own SUBSCRIBE. Without it, the client
        // took the channel for subscribed, added the new listener and dropped it at the reply.
        void this.subscriber.unsubscribe(channel, dispatch).catch(() => undefined);
      }
    });
    const listener: TopicListener = { deliver: (message) => push(JSON.parse(message) as Envelope<T>), lost: () => fail(new EventsLostError()) };
    own.add(listener);
    // Asked for while Redis cannot be reached, it would miss what is published until it is back.
    if (!this.subscriber.isReady) listener.lost();
    else if (fresh) this.listen(channel, entry);
    return iterator;
  }

  /** Subscribes the channel; refused (the connection dropped meanwhile), its subscriptions end with `events_lost`. */
  private listen(channel: string, entry: ChannelListeners): void {
    const subscribed = this.subscriber
      .subscribe(channel, entry.dispatch)
      .catch(() => [...entry.own].forEach((listener) => listener.lost()))
      .finally(() => this.pending.delete(subscribed));
    this.pending.add(subscribed);
  }

  /** Resolves once Redis has confirmed every pending SUBSCRIBE (tests publish right after). */
  async ready(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  /**
   * Drops both connections, the publisher's once Redis has answered what was sent on it (at most
   * DRAIN_DEADLINE_MS). Not QUIT: once said, node-redis waits for its answer before it lets go of
   * the socket, and a Redis that died or hangs while the client still reads as ready never gives
   * one, so a graceful shutdown during a Redis failure never ended.
   */
  async close(): Promise<void> {
    this.listeners.clear();
    // Every channel is left with it: nothing sent on the subscriber is worth waiting for.
    if (this.subscriber.isOpen) this.subscriber.destroy();
    if (this.publisher.isReady) await answeredWithin(this.publisher.ping(), DRAIN_DEADLINE_MS);
    if (this.publisher.isOpen) this.publisher.destroy();
    await this.floors?.close();
  }
}

/** Waits for a reply, or for `ms`, whichever comes first (Redis answers in order: a PING's reply follows every earlier one). */
async function answeredWithin(reply: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([reply.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
