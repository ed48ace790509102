const EVERY_MS_TTY = 250;
const EVERY_MS_LOG = 5000;
const WIDTH = 24;

/**
 * A progress bar on standard error, drawn as the importer draws its own: events copied of all the
 * run has to copy, the environment at work, events a second and the time left. Redrawn in place on
 * a terminal; a line every few seconds otherwise (logs, CI), the first one at once.
 */
export class CopyProgress {
  private readonly started = Date.now();
  private last = 0;

  /**
   * @param total events of the environments to copy, as PostgreSQL counted them before.
   * @param resumedAt events a checkpoint says were copied before this run.
   */
  constructor(
    private readonly total: number,
    private readonly resumedAt: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number, environmentId: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.last < (this.out.isTTY ? EVERY_MS_TTY : EVERY_MS_LOG)) return;
    this.last = now;
    const line = this.line(done, environmentId, now);
    this.out.write(this.out.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
  }

  finish(done: number, environmentId: number): void {
    this.update(done, environmentId, true);
    if (this.out.isTTY) this.out.write('\n');
  }

  /** Events a second this run (what a checkpoint skipped aside). */
  rate(done: number, now = Date.now()): number {
    return (done - this.resumedAt) / Math.max(0.001, (now - this.started) / 1000);
  }

  private line(done: number, environmentId: number, now: number): string {
    // Events stored meanwhile may take a copy past the count it started with.
    const share = this.total > 0 ? Math.min(1, done / this.total) : 1;
    const filled = Math.round(share * WIDTH);
    const rate = this.rate(done, now);
    const count = (n: number) => Math.round(n).toLocaleString('en');
    const remaining = Math.max(0, this.total - done);
    const left = remaining === 0 ? 'ETA 0 s' : rate > 0 ? `ETA ${duration(remaining / rate)}` : 'ETA —';
    return `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${(share * 100).toFixed(0).padStart(3)}% · ${count(done)} of ${count(this.total)} events · environment ${environmentId} · ${count(rate)} events/s · ${left}`;
  }
}

/** `1 h 02 min`, `3 min 05 s`, `12 s`. */
function duration(seconds: number): string {
  const whole = Math.ceil(seconds);
  const two = (n: number) => String(n).padStart(2, '0');
  if (whole >= 3600) return `${Math.floor(whole / 3600)} h ${two(Math.floor((whole % 3600) / 60))} min`;
  if (whole >= 60) return `${Math.floor(whole / 60)} min ${two(whole % 60)} s`;
  return `${whole} s`;
}
