import { EventsLostError } from '../errors.js';
import { LOST_NOTICE, pushIterator, type Envelope, type EventLog, type PubSub } from './pubsub.js';
import type { SequenceFloors } from './sequence-floors.js';
import { TopicSequences } from './topic-sequences.js';

/**
 * In-process pub/sub: valid only when the publisher and every subscriber share one process, where
 * no event can be lost on the way. With `floors`, sequences go on above those of the platform's
 * previous run (see {@link TopicSequences}); a floor that cannot be written ends the topic's
 * subscribers with `events_lost`, as a failed publish on Redis does.
 */
export class MemoryPubSub implements PubSub {
  private readonly subscribers = new TopicListeners();
  private readonly sequences: TopicSequences;
  readonly replay: EventLog = new MemoryEventLog();

  constructor(private readonly floors?: SequenceFloors) {
    this.sequences = new TopicSequences(floors);
  }

  async publish(topic: string, payload: unknown): Promise<number> {
    try {
      return await this.sequences.publish(topic, payloadJson(payload), (message) => this.subscribers.deliver(topic, message));
    } catch {
      this.subscribers.deliver(topic, LOST_NOTICE);
      return 0;
    }
  }

  subscribe<T>(topic: string): AsyncIterableIterator<Envelope<T>> {
    return this.subscribers.subscribe<T>(topic);
  }

  healthy(): boolean {
    return true;
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.subscribers.clear();
    await this.floors?.close();
  }
}

/** Subscribers of this process by topic, each fed the JSON envelopes delivered to its topic. */
export class TopicListeners {
  private readonly listeners = new Map<string, Set<TopicListener>>();

  subscribe<T>(topic: string): AsyncIterableIterator<Envelope<T>> {
    const listeners = this.listeners.get(topic) ?? new Set();
    this.listeners.set(topic, listeners);
    const { iterator, push, fail } = pushIterator<Envelope<T>>(() => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.listeners.get(topic) === listeners) this.listeners.delete(topic);
    });
    const listener: TopicListener = { deliver: (message) => push(JSON.parse(message) as Envelope<T>), lost: () => fail(new EventsLostError()) };
    listeners.add(listener);
    return iterator;
  }

  deliver(topic: string, message: string): void {
    for (const listener of this.listeners.get(topic) ?? []) deliverTo(listener, message);
  }

  /** Ends every subscription with `events_lost`: the events that reach them stopped coming. */
  loseAll(): void {
    for (const listeners of [...this.listeners.values()]) for (const listener of [...listeners]) listener.lost();
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** One subscription's ends: an event for it, or the word that events of its topic may be lost. */
export interface TopicListener {
  deliver: (message: string) => void;
  lost: () => void;
}

/** A message of a topic for one of its listeners: an event, or the lost notice that ends it. */
export function deliverTo(listener: TopicListener, message: string): void {
  if (message === LOST_NOTICE) listener.lost();
  else listener.deliver(message);
}

/** Logs and counters of one process; each expires `ttlSeconds` after its last use, as in Redis. */
export class MemoryEventLog implements EventLog {
  private readonly entries = new Map<string, { values: string[]; expires: number }>();
  private readonly counters = new Map<string, { value: number; expires: number }>();

  async nextSequence(counter: string, ttlSeconds: number): Promise<number> {
    const current = live(this.counters, counter);
    const value = (current?.value ?? 0) + 1;
    this.counters.set(counter, { value, expires: Date.now() + ttlSeconds * 1000 });
    return value;
  }

  async append(log: string, entry: string, ttlSeconds: number): Promise<void> {
    const current = live(this.entries, log) ?? { values: [], expires: 0 };
    current.values.push(entry);
    current.expires = Date.now() + ttlSeconds * 1000;
    this.entries.set(log, current);
    this.sweep();
  }

  async read(log: string): Promise<string[]> {
    return [...(live(this.entries, log)?.values ?? [])];
  }

  /** Expired logs go when new ones come, so a long-running process does not keep them all. */
  private sweep(): void {
    if (this.entries.size % 64 !== 0) return;
    for (const map of [this.entries, this.counters] as Map<string, { expires: number }>[]) {
      for (const [key, value] of map) if (value.expires <= Date.now()) map.delete(key);
    }
  }
}

function live<T extends { expires: number }>(map: Map<string, T>, key: string): T | undefined {
  const value = map.get(key);
  if (value && value.expires <= Date.now()) {
    map.delete(key);
    return undefined;
  }
  return value;
}

/** A payload as JSON; `undefined` (which JSON lacks) as null. */
export function payloadJson(payload: unknown): string {
  return JSON.stringify(payload) ?? 'null';
}
