import { ProgressBar } from '../../../../subgraphs/shared/progress-bar.js';

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

/**
 * The importer's progress bar: how far through the file the acknowledged events go, events
 * acknowledged, sent and waiting for their acknowledgement, rejected, and events a second. The bar
 * follows what the platform took, not what was read: during an outage it stops while reading
 * waits.
 */
export class Progress {
  private readonly bar: ProgressBar;

  constructor(
    private readonly totalBytes: number,
    private readonly resumedAt: number,
    out: NodeJS.WriteStream = process.stderr,
  ) {
    this.bar = new ProgressBar(out);
  }

  update(state: ProgressState, force = false): void {
    this.bar.draw((now) => this.frame(state, now), force);
  }

  finish(state: ProgressState): void {
    this.update(state, true);
    this.bar.end();
  }

  rate(sent: number, now = Date.now()): number {
    return this.bar.rate(sent, this.resumedAt, now);
  }

  private frame(state: ProgressState, now: number) {
    const share = this.totalBytes > 0 ? Math.min(1, state.acknowledgedBytes / this.totalBytes) : 1;
    const rate = Math.round(this.rate(state.acknowledged, now)).toLocaleString('en');
    const retrying = state.retrying ? ' · retrying' : '';
    const count = (n: number) => n.toLocaleString('en');
    return { share, text: `${count(state.acknowledged)} events acknowledged · ${count(state.unacknowledged)} awaiting acknowledgement · ${rate} events/s · ${count(state.rejected)} rejected${retrying}` };
  }
}
