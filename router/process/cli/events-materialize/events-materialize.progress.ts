import { ProgressBar } from '../../../../subgraphs/shared/progress-bar.js';

/**
 * A fill's progress bar: the parts of the events table ClickHouse has rewritten with the column,
 * of those it has to, and the time so far.
 */
export class FillBar {
  private readonly bar: ProgressBar;

  constructor(out: NodeJS.WriteStream = process.stderr) {
    this.bar = new ProgressBar(out);
  }

  update(progress: { column: string; partsDone: number; partsTotal: number }): void {
    const share = progress.partsTotal > 0 ? progress.partsDone / progress.partsTotal : 1;
    this.bar.draw(
      (now) => ({ share, text: `filling ${progress.column} · ${progress.partsDone} of ${progress.partsTotal} parts · ${((now - this.bar.started) / 1000).toFixed(1)} s` }),
      progress.partsDone === progress.partsTotal,
    );
  }

  finish(): void {
    this.bar.end();
  }
}
