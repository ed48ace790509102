const EVERY_MS_TTY = 250;
const EVERY_MS_LOG = 5000;
const WIDTH = 24;

/** One drawing of a bar: how much of the work is done (0 to 1), and what follows the bar. */
export interface Frame {
  share: number;
  text: string;
}

/**
 * The commands' progress bar on standard error (the importer's, the events copy's, the column
 * fill's): `[######..] 25% · <text>`. Redrawn in place on a terminal; on anything else (logs, CI) a
 * line every few seconds, the first one at once, so that a long run shows it is alive without
 * filling its log.
 */
export class ProgressBar {
  readonly started = Date.now();
  private last = 0;
  private drawn = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {}

  /** Draws the frame unless a line was drawn a moment ago; `force` draws it anyway (the last one). */
  draw(frame: (now: number) => Frame, force = false): void {
    const now = Date.now();
    if (!force && now - this.last < (this.out.isTTY ? EVERY_MS_TTY : EVERY_MS_LOG)) return;
    this.last = now;
    this.drawn = true;
    const { share, text } = frame(now);
    const filled = Math.round(Math.min(1, Math.max(0, share)) * WIDTH);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${(share * 100).toFixed(0).padStart(3)}% · ${text}`;
    this.out.write(this.out.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
  }

  /** Ends the bar's line on a terminal, once it was drawn. */
  end(): void {
    if (this.drawn && this.out.isTTY) this.out.write('\n');
  }

  /** Units a second since the bar began: `done` less what was done before (`from`, a resumed run's). */
  rate(done: number, from: number, now = Date.now()): number {
    return (done - from) / Math.max(0.001, (now - this.started) / 1000);
  }
}

/** `1 h 02 min`, `3 min 05 s`, `12 s`. */
export function duration(seconds: number): string {
  const whole = Math.ceil(seconds);
  const two = (n: number) => String(n).padStart(2, '0');
  if (whole >= 3600) return `${Math.floor(whole / 3600)} h ${two(Math.floor((whole % 3600) / 60))} min`;
  if (whole >= 60) return `${Math.floor(whole / 60)} min ${two(whole % 60)} s`;
  return `${whole} s`;
}
