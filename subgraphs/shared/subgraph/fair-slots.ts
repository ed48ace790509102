/**
 * At most `size` holders at once, shared fairly between keys (tenants): one key holds at most
 * `perKey` of them, so that some stay free for the others however much one key asks; and when a
 * slot frees, the key holding the fewest goes next (of equals, the one waiting longest), not the
 * key that queued most. Within a key, waiters go in order. Every waiter is served once the holders
 * before it leave: a key whose holders all left holds none, and no key holds fewer.
 */
export class FairSlots<Key = number> {
  private total = 0;
  private readonly held = new Map<Key, number>();
  private readonly waiting = new Map<Key, { since: number; admit: () => void }[]>();
  private arrivals = 0;

  constructor(
    private readonly size: number,
    private readonly perKey = fairShare(size),
  ) {
    if (!(size >= 1 && perKey >= 1)) throw new Error(`FairSlots needs at least one slot (size ${size}, per key ${perKey})`);
  }

  /** Resolves when `key` may hold a slot, with the function that frees it (call it once). */
  async acquire(key: Key): Promise<() => void> {
    if (!this.waiting.has(key) && this.admissible(key)) this.take(key);
    else await new Promise<void>((admit) => this.queue(key, admit));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leave(key);
      this.admitWaiting();
    };
  }

  /** Slots held by `key` now (for tests and metrics). */
  holding(key: Key): number {
    return this.held.get(key) ?? 0;
  }

  private admissible(key: Key): boolean {
    return this.total < this.size && this.holding(key) < this.perKey;
  }

  private queue(key: Key, admit: () => void): void {
    const line = this.waiting.get(key) ?? [];
    line.push({ since: this.arrivals++, admit });
    this.waiting.set(key, line);
  }

  private take(key: Key): void {
    this.total++;
    this.held.set(key, this.holding(key) + 1);
  }

  private leave(key: Key): void {
    this.total--;
    const left = this.holding(key) - 1;
    if (left > 0) this.held.set(key, left);
    else this.held.delete(key);
  }

  private admitWaiting(): void {
    for (let key = this.next(); key !== undefined; key = this.next()) {
      const line = this.waiting.get(key)!;
      const { admit } = line.shift()!;
      if (line.length === 0) this.waiting.delete(key);
      this.take(key);
      admit();
    }
  }

  /** The waiting key to serve next: under its share, holding fewest, waiting longest. */
  private next(): Key | undefined {
    if (this.total >= this.size) return undefined;
    let best: { key: Key; held: number; since: number } | undefined;
    for (const [key, line] of this.waiting) {
      const held = this.holding(key);
      if (held >= this.perKey) continue;
      const since = line[0]!.since;
      if (!best || held < best.held || (held === best.held && since < best.since)) best = { key, held, since };
    }
    return best?.key;
  }
}

/**
 * The most one key holds of `size` slots: all but about a third (and all but one at least), so
 * that another key finds a slot free at once while one key alone still has most of them.
 */
export function fairShare(size: number): number {
  return size <= 1 ? 1 : size - Math.max(1, Math.floor(size / 3));
}
