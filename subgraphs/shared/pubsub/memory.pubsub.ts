import { pushIterator, type Envelope, type EventLog, type PubSub } from './pubsub.js';

/** In-process pub/sub: valid only when the publisher and every subscriber share one process. */
export class MemoryPubSub implements PubSub {
  private readonly subscribers = new TopicListeners();
  private readonly sequences = new TopicSequences();
  readonly replay: EventLog = new MemoryEventLog();

  async publish(topic: string, payload: unknown): Promise<number> {
    const { sequence, message } = this.sequences.envelope(topic, payloadJson(payload));
    this.subscribers.deliver(topic, message);
    return sequence;
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
  }
}

/** The next sequence number of each topic, and the JSON envelope that carries it. */
export class TopicSequences {
  private readonly sequences = new Map<string, number>();

  envelope(topic: string, payloadJson: string): { sequence: number; message: string } {
    const sequence = (this.sequences.get(topic) ?? 0) + 1;
    this.sequences.set(topic, sequence);
    return { sequence, message: `{"sequence":${sequence},"payload":${payloadJson}}` };
  }
}

/** Subscribers of this process by topic, each fed the JSON envelopes delivered to its topic. */
export class TopicListeners {
  private readonly listeners = new Map<string, Set<(message: string) => void>>();

  subscribe<T>(topic: string): AsyncIterableIterator<Envelope<T>> {
    const listeners = this.listeners.get(topic) ?? new Set();
    this.listeners.set(topic, listeners);
    const listener = (message: string) => push(JSON.parse(message) as Envelope<T>);
    const { iterator, push } = pushIterator<Envelope<T>>(() => {
      listeners.delete(listener);
      if (listeners.size === 0) this.listeners.delete(topic);
    });
    listeners.add(listener);
    return iterator;
  }

  deliver(topic: string, message: string): void {
    for (const listener of this.listeners.get(topic) ?? []) listener(message);
  }

  clear(): void {
    this.listeners.clear();
  }
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
