/** What the progress line shows. */
export interface ProgressState {
  bytesRead: number;
  sent: number;
  rejected: number;
  retrying: boolean;
}

const EVERY_MS_TTY = 250;
const EVERY_MS_LOG = 5000;
const WIDTH = 24;

/**
 * A progress bar on standard error: how far through the file, events stored and rejected, events
 * a second. Redrawn in place on a terminal; a line every few seconds otherwise (logs, CI).
 */
export class Progress {
  private readonly started = Date.now();
  private last = 0;

  constructor(
    private readonly totalBytes: number,
    private readonly resumedAt: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(state: ProgressState, force = false): void {
    const now = Date.now();
    if (!force && now - this.last < (this.out.isTTY ? EVERY_MS_TTY : EVERY_MS_LOG)) return;
    this.last = now;
    const line = this.line(state, now);
    this.out.write(this.out.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
  }

  finish(state: ProgressState): void {
    this.update(state, true);
    if (this.out.isTTY) this.out.write('\n');
  }

  rate(sent: number, now = Date.now()): number {
    return (sent - this.resumedAt) / Math.max(0.001, (now - this.started) / 1000);
  }

  private line(state: ProgressState, now: number): string {
    const share = this.totalBytes > 0 ? Math.min(1, state.bytesRead / this.totalBytes) : 1;
    const filled = Math.round(share * WIDTH);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}]`;
    const rate = Math.round(this.rate(state.sent, now)).toLocaleString('en');
    const retrying = state.retrying ? ' · retrying' : '';
    return `${bar} ${(share * 100).toFixed(0).padStart(3)}% · ${state.sent.toLocaleString('en')} events sent · ${rate} events/s · ${state.rejected.toLocaleString('en')} rejected${retrying}`;
  }
}
