/** What the progress line shows. */
export interface ProgressState {
  /** How far into the file the lines go whose events the platform has acknowledged (the checkpoint). */
  acknowledgedBytes: number;
  /** Events stored, as the platform acknowledged them. */
  acknowledged: number;
  /** Events sent and not acknowledged yet (in flight, or waiting to be sent again). */
  unacknowledged: number;
  rejected: number;
  retrying: boolean;
}

const EVERY_MS_TTY = 250;
const EVERY_MS_LOG = 5000;
const WIDTH = 24;

/**
 * A progress bar on standard error: how far through the file the acknowledged events go, events
 * acknowledged, sent and waiting for their acknowledgement, rejected, and events a second. The bar
 * follows what the platform took, not what was read: during an outage it stops while reading
 * waits. Redrawn in place on a terminal; a line every few seconds otherwise (logs, CI).
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
    const share = this.totalBytes > 0 ? Math.min(1, state.acknowledgedBytes / this.totalBytes) : 1;
    const filled = Math.round(share * WIDTH);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}]`;
    const rate = Math.round(this.rate(state.acknowledged, now)).toLocaleString('en');
    const retrying = state.retrying ? ' · retrying' : '';
    const count = (n: number) => n.toLocaleString('en');
    return `${bar} ${(share * 100).toFixed(0).padStart(3)}% · ${count(state.acknowledged)} events acknowledged · ${count(state.unacknowledged)} awaiting acknowledgement · ${rate} events/s · ${count(state.rejected)} rejected${retrying}`;
  }
}
