import { createClient } from 'redis';
import type { Logger } from '../logger.js';
import { connectAnswering } from './redis.connect.js';
import { pushIterator, type Envelope, type EventLog, type KeyValueStore, type PubSub } from './pubsub.js';

type RedisClient = ReturnType<typeof createClient>;

const INITIAL_ATTEMPTS = 3;
/** How long closing waits for Redis to answer the commands already sent before it drops the connection. */
const DRAIN_DEADLINE_MS = 2000;

/** This process's listeners of a channel, and the one listener given to Redis's client for them all. */
interface ChannelListeners {
  own: Set<(message: string) => void>;
  dispatch: (message: string) => void;
}

/**
 * Redis pub/sub across processes. Publishing and subscribing use separate connections (a
 * subscribed connection can do nothing else); every channel and counter key carries `prefix` so
 * that deployments sharing a Redis never hear each other.
 */
export class RedisPubSub implements PubSub {
  private readonly listeners = new Map<string, ChannelListeners>();
  private readonly refused = new Set<string>();
  private readonly pending = new Set<Promise<unknown>>();
  readonly store: KeyValueStore;
  readonly replay: EventLog;

  private constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly prefix: string,
    private readonly log?: Logger,
  ) {
    subscriber.on('ready', () => this.listenAgain());
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
  static async connect(url: string, prefix: string, log?: Logger): Promise<RedisPubSub> {
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
    return new RedisPubSub(publisher, subscriber, prefix, log);
  }

  async publish(topic: string, payload: unknown): Promise<number> {
    try {
      const sequence = await this.publisher.incr(`${this.prefix}seq:${topic}`);
      await this.publisher.publish(this.prefix + topic, JSON.stringify({ sequence, payload }));
      return sequence;
    } catch (error) {
      this.log?.error({ err: error, topic }, 'event not published');
      return 0;
    }
  }

  healthy(): boolean {
    return this.publisher.isReady && this.subscriber.isReady;
  }

  subscribe<T>(topic: string): AsyncIterableIterator<Envelope<T>> {
    const channel = this.prefix + topic;
    let entry = this.listeners.get(channel);
    if (!entry) {
      const own = new Set<(message: string) => void>();
      entry = { own, dispatch: (message) => own.forEach((listener) => listener(message)) };
      this.listeners.set(channel, entry);
      this.listen(channel, entry);
    }
    const { own, dispatch } = entry;
    const listener = (message: string) => push(JSON.parse(message) as Envelope<T>);
    const { iterator, push } = pushIterator<Envelope<T>>(() => {
      own.delete(listener);
      if (own.size === 0 && this.listeners.get(channel) === entry) {
        this.listeners.delete(channel);
        // Named with its listener: the client then marks the channel as leaving, so a subscribe
        // before Redis confirms the UNSUBSCRIBE sends its own SUBSCRIBE. Without it, the client
        // took the channel for subscribed, added the new listener and dropped it at the reply.
        void this.subscriber.unsubscribe(channel, dispatch).catch(() => undefined);
      }
    });
    own.add(listener);
    return iterator;
  }

  /**
   * Subscribes the channel. Redis's client subscribes again after a reconnect only to channels it
   * had subscribed, so one refused while Redis was unreachable (at once: commands are not queued
   * offline) waits in `refused` until the client is ready again.
   */
  private listen(channel: string, entry: ChannelListeners): void {
    const subscribed = this.subscriber
      .subscribe(channel, entry.dispatch)
      .catch(() => void this.refused.add(channel))
      .finally(() => this.pending.delete(subscribed));
    this.pending.add(subscribed);
  }

  /** Asks again for the channels refused while Redis was unreachable that someone here still listens to. */
  private listenAgain(): void {
    for (const channel of this.refused) {
      this.refused.delete(channel);
      const entry = this.listeners.get(channel);
      if (entry) this.listen(channel, entry);
    }
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
  }
}

/** Waits for a reply, or for `ms`, whichever comes first (Redis answers in order: a PING's reply follows every earlier one). */
async function answeredWithin(reply: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([reply.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
