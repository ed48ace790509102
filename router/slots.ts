/**
 * At most `size` holders at once, whose weights (bytes, say) add up to at most `budget`; the others
 * wait their turn, in order. A holder heavier than the whole budget gets in alone. For work whose
 * memory is taken per request (a 20 MB batch parsed and written).
 */
export class Slots {
  private held = 0;
  private weight = 0;
  private readonly waiting: { weight: number; admit: () => void }[] = [];

  constructor(
    private readonly size: number,
    private readonly budget = Infinity,
  ) {}

  /** Resolves when a slot and `weight` of the budget are free, with the function that frees them (call it once). */
  async acquire(weight = 0): Promise<() => void> {
    if (this.waiting.length === 0 && this.fits(weight)) this.take(weight);
    else await new Promise<void>((admit) => this.waiting.push({ weight, admit }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      this.weight -= weight;
      this.admitWaiting();
    };
  }

  private fits(weight: number): boolean {
    return this.held < this.size && (this.held === 0 || this.weight + weight <= this.budget);
  }

  private take(weight: number): void {
    this.held++;
    this.weight += weight;
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.weight)) {
      const next = this.waiting.shift()!;
      this.take(next.weight);
      next.admit();
    }
  }
}
