/**
 * At most `size` holders at once; the others wait their turn, in order. For work whose memory is
 * taken per request (a 20 MB batch read, parsed and written): callers wait before they read.
 */
export class Slots {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Resolves when a slot is free, with the function that frees it (call it once). */
  async acquire(): Promise<() => void> {
    if (this.held >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    };
  }
}
