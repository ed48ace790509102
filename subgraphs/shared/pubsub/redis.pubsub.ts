import { createClient } from 'redis';
import type { Logger } from '../logger.js';
import { pushIterator, type Envelope, type PubSub } from './pubsub.js';

type RedisClient = ReturnType<typeof createClient>;

/**
 * Redis pub/sub across processes. Publishing and subscribing use separate connections (a
 * subscribed connection can do nothing else); every channel and counter key carries `prefix` so
 * that deployments sharing a Redis never hear each other.
 */
export class RedisPubSub implements PubSub {
  private readonly listeners = new Map<string, Set<(message: string) => void>>();
  private readonly pending = new Set<Promise<unknown>>();

  private constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly prefix: string,
  ) {}

  static async connect(url: string, prefix: string, log?: Logger): Promise<RedisPubSub> {
    if (!prefix) throw new Error('RedisPubSub needs a channel prefix');
    const publisher = createClient({ url });
    const subscriber = publisher.duplicate();
    for (const client of [publisher, subscriber]) {
      client.on('error', (error: Error) => log?.warn({ err: error }, 'redis connection error'));
    }
    await Promise.all([publisher.connect(), subscriber.connect()]);
    return new RedisPubSub(publisher, subscriber, prefix);
  }

  async publish(topic: string, payload: unknown): Promise<number> {
    const sequence = await this.publisher.incr(`${this.prefix}seq:${topic}`);
    await this.publisher.publish(this.prefix + topic, JSON.stringify({ sequence, payload }));
    return sequence;
  }

  subscribe<T>(topic: string): AsyncIterableIterator<Envelope<T>> {
    const channel = this.prefix + topic;
    let listeners = this.listeners.get(channel);
    if (!listeners) {
      const created = new Set<(message: string) => void>();
      listeners = created;
      this.listeners.set(channel, created);
      const subscribed = this.subscriber
        .subscribe(channel, (message) => {
          for (const listener of created) listener(message);
        })
        .finally(() => this.pending.delete(subscribed));
      this.pending.add(subscribed);
    }
    const own = listeners;
    const listener = (message: string) => push(JSON.parse(message) as Envelope<T>);
    const { iterator, push } = pushIterator<Envelope<T>>(() => {
      own.delete(listener);
      if (own.size === 0 && this.listeners.get(channel) === own) {
        this.listeners.delete(channel);
        void this.subscriber.unsubscribe(channel).catch(() => undefined);
      }
    });
    own.add(listener);
    return iterator;
  }

  /** Resolves once Redis has confirmed every pending SUBSCRIBE (tests publish right after). */
  async ready(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await Promise.allSettled([this.publisher.quit(), this.subscriber.quit()]);
  }
}
