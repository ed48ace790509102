import { duration, ProgressBar } from '../../../../subgraphs/shared/progress-bar.js';

/**
 * The copy's progress bar: events copied of all the run has to copy, the environment at work,
 * events a second and the time left.
 */
export class CopyProgress {
  private readonly bar: ProgressBar;

  /**
   * @param total events of the environments to copy, as PostgreSQL counted them before.
   * @param resumedAt events a checkpoint says were copied before this run.
   */
  constructor(
    private readonly total: number,
    private readonly resumedAt: number,
    out: NodeJS.WriteStream = process.stderr,
  ) {
    this.bar = new ProgressBar(out);
  }

  update(done: number, environmentId: number, force = false): void {
    this.bar.draw((now) => this.frame(done, environmentId, now), force);
  }

  finish(done: number, environmentId: number): void {
    this.update(done, environmentId, true);
    this.bar.end();
  }

  /** Events a second this run (what a checkpoint skipped aside). */
  rate(done: number, now = Date.now()): number {
    return this.bar.rate(done, this.resumedAt, now);
  }

  private frame(done: number, environmentId: number, now: number) {
    // Events stored meanwhile may take a copy past the count it started with.
    const share = this.total > 0 ? Math.min(1, done / this.total) : 1;
    const rate = this.rate(done, now);
    const count = (n: number) => Math.round(n).toLocaleString('en');
    const remaining = Math.max(0, this.total - done);
    const left = remaining === 0 ? 'ETA 0 s' : rate > 0 ? `ETA ${duration(remaining / rate)}` : 'ETA —';
    return { share, text: `${count(done)} of ${count(this.total)} events · environment ${environmentId} · ${count(rate)} events/s · ${left}` };
  }
}
