import { pushIterator, type Envelope, type PubSub } from './pubsub.js';

/** In-process pub/sub: valid only when the publisher and every subscriber share one process. */
export class MemoryPubSub implements PubSub {
  private readonly listeners = new Map<string, Set<(message: string) => void>>();
  private readonly sequences = new Map<string, number>();

  async publish(topic: string, payload: unknown): Promise<number> {
    const sequence = (this.sequences.get(topic) ?? 0) + 1;
    this.sequences.set(topic, sequence);
    const message = JSON.stringify({ sequence, payload });
    for (const listener of this.listeners.get(topic) ?? []) listener(message);
    return sequence;
  }

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

  healthy(): boolean {
    return true;
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
