import { open, stat } from 'node:fs/promises';
import { deliver, type LineEvent, type Reject } from './batch.sender.js';
import { exportedEvent } from './export-line.mapper.js';
import { loadCheckpoint, saveCheckpoint, trimRejects, type Checkpoint } from './import.checkpoint.js';
import type { ImportOptions } from './import.options.js';
import { Progress } from './import.progress.js';
import { readLines } from './jsonl.reader.js';

/** What an import did, printed as one JSON object when it ends. */
export interface ImportSummary {
  file: string;
  resumed_from_line: number;
  lines: number;
  sent: number;
  rejected: number;
  seconds: number;
  events_per_second: number;
  stopped: boolean;
}

/** A run of lines sent together. */
interface Batch {
  lastLine: number;
  events: LineEvent[];
  bytes: number;
  /** Lines refused, by the importer or the server, with their text. */
  rejects: (Reject & { text: string })[];
  /** Each event's line as the file has it, for the rejects file. */
  texts: Map<number, string>;
  /** How many of `events` the server refused, and took, once the batch is stored. */
  refused: number;
  sent: number;
  state: 'open' | 'sending' | 'stored' | 'failed';
  delivered?: Promise<void>;
}

/** Checkpoints are written at most this often (each is an fsync); the last one when the import ends. */
const CHECKPOINT_EVERY_MS = 1000;
/**
 * Batches kept while an earlier one is still being sent (it may retry for minutes): past this,
 * reading waits, so memory stays bounded.
 */
const AHEAD_PER_SENDER = 8;

/**
 * Imports a JSON-lines file through `/batch/`, `concurrency` batches at a time. Lines are done in
 * file order as far as the checkpoint goes: it covers the longest run of batches from the start
 * that are stored, and their rejects are written to the rejects file then, so that a resumed import
 * (after a crash, a SIGKILL or `stop()`) sends again only what came after it, and the server's
 * uuids keep what it sends twice from being stored twice.
 */
export class Importer {
  private stopping = false;
  private retrying = false;
  private bytesRead = 0;
  private checkpoint!: Checkpoint;
  private savedAt = 0;
  private readonly order: Batch[] = [];
  private failure: unknown;
  /** Checkpoint moves run one after another: two would write the same temporary file at once. */
  private advancing: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: ImportOptions,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  /** Stop reading, let the batches in flight finish, save the checkpoint. */
  stop(): void {
    this.stopping = true;
  }

  async run(): Promise<ImportSummary> {
    const { options } = this;
    this.checkpoint = await loadCheckpoint(options.checkpoint, options.file);
    await trimRejects(options.rejects, this.checkpoint.rejects_bytes);
    const resumedAt = this.checkpoint.line;
    if (resumedAt > 0) this.log(`resuming after line ${resumedAt} (${this.checkpoint.sent} events stored, ${this.checkpoint.rejected} rejected before)`);
    const progress = new Progress((await stat(options.file)).size, this.checkpoint.sent);
    const started = Date.now();
    const state = () => ({ bytesRead: this.bytesRead, sent: this.checkpoint.sent, rejected: this.checkpoint.rejected, retrying: this.retrying });
    let batch = this.newBatch();
    let lines = resumedAt;
    for await (const { number, text } of readLines(options.file, (bytes) => (this.bytesRead = bytes))) {
      if (number <= resumedAt) continue;
      if (this.stopping || this.failure) break;
      lines = number;
      this.add(batch, number, text);
      if (batch.events.length >= options.batchSize || batch.bytes >= options.maxBatchBytes) {
        await this.dispatch(batch);
        batch = this.newBatch();
      }
      progress.update(state());
    }
    if (!this.stopping && !this.failure && (batch.events.length > 0 || batch.rejects.length > 0)) await this.dispatch(batch);
    await Promise.allSettled(this.order.map((pending) => pending.delivered));
    await this.advance(true);
    progress.finish(state());
    if (this.failure) throw this.failure;
    const seconds = (Date.now() - started) / 1000;
    return {
      file: this.checkpoint.file,
      resumed_from_line: resumedAt,
      lines: Math.max(lines, this.checkpoint.line),
      sent: this.checkpoint.sent,
      rejected: this.checkpoint.rejected,
      seconds: Math.round(seconds * 10) / 10,
      events_per_second: Math.round(progress.rate(this.checkpoint.sent)),
      stopped: this.stopping,
    };
  }

  private newBatch(): Batch {
    return { lastLine: 0, events: [], bytes: 0, rejects: [], texts: new Map(), refused: 0, sent: 0, state: 'open' };
  }

  private add(batch: Batch, line: number, text: string): void {
    batch.lastLine = line;
    const read = exportedEvent(text, Date.now());
    if ('reason' in read) {
      batch.rejects.push({ line, reason: read.reason, text });
      return;
    }
    const json = JSON.stringify(read.event);
    batch.events.push({ line, json });
    batch.texts.set(line, text);
    batch.bytes += Buffer.byteLength(json) + 1;
  }

  /** Sends a batch once fewer than `concurrency` are in flight. */
  private async dispatch(batch: Batch): Promise<void> {
    const sending = () => this.order.filter((pending) => pending.state === 'sending');
    while (sending().length >= this.options.concurrency || this.order.length >= this.options.concurrency * AHEAD_PER_SENDER) {
      await Promise.race(sending().map((pending) => pending.delivered));
    }
    this.order.push(batch);
    batch.state = 'sending';
    batch.delivered = deliver(batch.events, {
      url: `${this.options.host}/batch/`,
      token: this.options.token,
      retryForMs: this.options.retryForMs,
      onRetry: (retrying, why) => {
        if (retrying && !this.retrying) this.log(`\nretrying: ${why}`);
        this.retrying = retrying;
      },
    }).then(
      async (refused) => {
        batch.rejects.push(...refused.map((reject) => ({ ...reject, text: batch.texts.get(reject.line)! })));
        batch.refused = refused.length;
        batch.state = 'stored';
        // What waits for the checkpoint is only the counts and the rejects.
        batch.sent = batch.events.length - refused.length;
        batch.events = [];
        batch.texts.clear();
        await this.advance(false);
      },
      (error: unknown) => {
        this.failure ??= error;
        batch.state = 'failed';
      },
    );
  }

  private advance(force: boolean): Promise<void> {
    // A checkpoint that cannot be written (a full disk) ends the import, as a refused batch does.
    this.advancing = this.advancing.then(() => this.advanceNow(force)).catch((error: unknown) => {
      this.failure ??= error;
    });
    return this.advancing;
  }

  /**
   * Moves the checkpoint over the batches stored from the start of the file (a failed or unfinished
   * one stops it), writing their rejects first; saved at most every second unless `force`.
   */
  private async advanceNow(force: boolean): Promise<void> {
    let moved = false;
    while (this.order[0]?.state === 'stored') {
      const batch = this.order.shift()!;
      if (batch.rejects.length > 0) {
        const text = batch.rejects.map((reject) => `${JSON.stringify({ line: reject.line, reason: reject.reason, text: reject.text })}\n`).join('');
        await appendRejects(this.options.rejects, text);
        this.checkpoint.rejects_bytes += Buffer.byteLength(text);
      }
      this.checkpoint.line = batch.lastLine;
      this.checkpoint.rejected += batch.rejects.length;
      this.checkpoint.sent += batch.sent;
      moved = true;
    }
    if ((moved || force) && (force || Date.now() - this.savedAt >= CHECKPOINT_EVERY_MS)) {
      this.savedAt = Date.now();
      await saveCheckpoint(this.options.checkpoint, this.checkpoint);
    }
  }
}

/** Appended and synced before the checkpoint that counts them is: after a crash, the file holds at least what the checkpoint says. */
async function appendRejects(path: string, text: string): Promise<void> {
  const file = await open(path, 'a');
  try {
    await file.write(text);
    await file.sync();
  } finally {
    await file.close();
  }
}
