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

/** A run of lines read together: one batch for each sender, by distinct id. */
interface Chunk {
  lastLine: number;
  /** How far into the file reading was when the chunk was full. */
  endBytes: number;
  /** Each sender's batch; empty for a sender none of the chunk's distinct ids fell to. */
  lanes: LineEvent[][];
  bytes: number[];
  /** Lines refused, by the importer or the server, with their text. */
  rejects: (Reject & { text: string })[];
  /** Each event's line as the file has it, for the rejects file. */
  texts: Map<number, string>;
  sent: number;
  state: 'open' | 'sending' | 'stored' | 'failed';
  delivered?: Promise<void>;
}

/** Checkpoints are written at most this often (each is an fsync); the last one when the import ends. */
const CHECKPOINT_EVERY_MS = 1000;
/**
 * Chunks kept while an earlier one is still being sent (it may retry for minutes): past this,
 * reading waits, so memory stays bounded.
 */
const AHEAD_PER_SENDER = 8;
const PROGRESS_EVERY_MS = 250;

/**
 * Imports a JSON-lines file through `/batch/` with `concurrency` senders. Each distinct id has one
 * sender, which sends its batches one after another, so a person's events arrive, and their
 * `$set`s apply, in file order (PostHog's capture keeps a distinct id's events in order the same
 * way, by partition). Lines are done in file order as far as the checkpoint goes: it covers the
 * longest run of chunks from the start that are stored, and their rejects are written to the
 * rejects file then, so that a resumed import (after a crash, a SIGKILL or `stop()`) sends again
 * only what came after it, and the server's uuids keep what it sends twice from being stored twice.
 */
export class Importer {
  private stopping = false;
  /** Batches waiting to be sent again (network, 5xx), for the progress line. */
  private retrying = 0;
  private bytesRead = 0;
  /** How far into the file the checkpoint's lines go. */
  private acknowledgedBytes = 0;
  /** Events of the chunks handed to senders and not stored yet. */
  private unacknowledged = 0;
  private checkpoint!: Checkpoint;
  private savedAt = 0;
  private readonly order: Chunk[] = [];
  /** Each sender's last batch: the next one of that sender waits for it. */
  private readonly senders: Promise<unknown>[];
  private failure: unknown;
  /** Checkpoint moves run one after another: two would write the same temporary file at once. */
  private advancing: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: ImportOptions,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    this.senders = Array.from({ length: options.concurrency }, () => Promise.resolve());
  }

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
    const state = () => ({
      acknowledgedBytes: this.acknowledgedBytes,
      acknowledged: this.checkpoint.sent,
      unacknowledged: this.unacknowledged,
      rejected: this.checkpoint.rejected,
      retrying: this.retrying > 0,
    });
    // Drawn on a timer too: skipping to a checkpoint and the last batches in flight read nothing.
    const ticker = setInterval(() => progress.update(state()), PROGRESS_EVERY_MS);
    let lines = resumedAt;
    try {
      let chunk = this.newChunk();
      for await (const { number, text } of readLines(options.file, (bytes) => (this.bytesRead = bytes))) {
        if (number <= resumedAt) {
          this.acknowledgedBytes = this.bytesRead;
          continue;
        }
        if (this.stopping || this.failure) break;
        lines = number;
        if (this.add(chunk, number, text)) {
          chunk.endBytes = this.bytesRead;
          await this.dispatch(chunk);
          chunk = this.newChunk();
        }
      }
      if (!this.stopping && !this.failure && chunk.lastLine > 0) {
        chunk.endBytes = this.bytesRead;
        await this.dispatch(chunk);
      }
      await Promise.allSettled([...this.order.map((pending) => pending.delivered), ...this.senders]);
      await this.advance(true);
    } finally {
      clearInterval(ticker);
    }
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

  private newChunk(): Chunk {
    const lanes = this.options.concurrency;
    return { lastLine: 0, endBytes: 0, lanes: Array.from({ length: lanes }, () => []), bytes: new Array<number>(lanes).fill(0), rejects: [], texts: new Map(), sent: 0, state: 'open' };
  }

  /** Adds a line to the chunk; true when the chunk is full (a sender's batch reached its size). */
  private add(chunk: Chunk, line: number, text: string): boolean {
    chunk.lastLine = line;
    const read = exportedEvent(text, Date.now());
    if ('reason' in read) {
      chunk.rejects.push({ line, reason: read.reason, text });
      return false;
    }
    const json = JSON.stringify(read.event);
    const lane = laneOf(read.distinctId, chunk.lanes.length);
    chunk.lanes[lane]!.push({ line, json });
    chunk.texts.set(line, text);
    chunk.bytes[lane]! += Buffer.byteLength(json) + 1;
    return chunk.lanes[lane]!.length >= this.options.batchSize || chunk.bytes[lane]! >= this.options.maxBatchBytes;
  }

  /** Hands each of the chunk's batches to its sender, once reading is not too far ahead of the checkpoint. */
  private async dispatch(chunk: Chunk): Promise<void> {
    const limit = this.options.concurrency * AHEAD_PER_SENDER;
    for (;;) {
      const sending = this.order.filter((pending) => pending.state === 'sending');
      // Nothing sending and the window full means its first chunk failed: the import is ending.
      if (this.failure || this.stopping || this.order.length < limit || sending.length === 0) break;
      await Promise.race(sending.map((pending) => pending.delivered));
    }
    if (this.failure || this.stopping) return;
    this.order.push(chunk);
    chunk.state = 'sending';
    const events = chunk.lanes.reduce((sum, lane) => sum + lane.length, 0);
    this.unacknowledged += events;
    const batches = chunk.lanes.map((lane, index) => (lane.length === 0 ? Promise.resolve([]) : this.send(index, lane)));
    chunk.delivered = Promise.all(batches).then(
      async (perSender) => {
        this.unacknowledged -= events;
        const refused = perSender.flat();
        chunk.rejects.push(...refused.map((reject) => ({ ...reject, text: chunk.texts.get(reject.line)! })));
        chunk.rejects.sort((a, b) => a.line - b.line);
        chunk.state = 'stored';
        // What waits for the checkpoint is only the counts and the rejects.
        chunk.sent = events - refused.length;
        chunk.lanes = [];
        chunk.texts.clear();
        await this.advance(false);
      },
      (error: unknown) => {
        this.unacknowledged -= events;
        this.failure ??= error;
        chunk.state = 'failed';
      },
    );
  }

  /** A batch, sent after the sender's previous one; none once the import has failed. */
  private send(lane: number, events: LineEvent[]): Promise<Reject[]> {
    let retrying = false;
    const sent = this.senders[lane]!.then(() => {
      if (this.failure) throw this.failure;
      return deliver(events, {
        url: `${this.options.host}/batch/`,
        token: this.options.token,
        retryForMs: this.options.retryForMs,
        onRetry: (now, why) => {
          if (now && this.retrying === 0) this.log(`\nretrying: ${why}`);
          if (now !== retrying) this.retrying += now ? 1 : -1;
          retrying = now;
        },
      });
    });
    this.senders[lane] = sent.catch(() => undefined);
    return sent;
  }

  private advance(force: boolean): Promise<void> {
    // A checkpoint that cannot be written (a full disk) ends the import, as a refused batch does.
    this.advancing = this.advancing.then(() => this.advanceNow(force)).catch((error: unknown) => {
      this.failure ??= error;
    });
    return this.advancing;
  }

  /**
   * Moves the checkpoint over the chunks stored from the start of the file (a failed or unfinished
   * one stops it), writing their rejects first; saved at most every second unless `force`.
   */
  private async advanceNow(force: boolean): Promise<void> {
    let moved = false;
    while (this.order[0]?.state === 'stored') {
      const chunk = this.order.shift()!;
      if (chunk.rejects.length > 0) {
        const text = chunk.rejects.map((reject) => `${JSON.stringify({ line: reject.line, reason: reject.reason, text: reject.text })}\n`).join('');
        await appendRejects(this.options.rejects, text);
        this.checkpoint.rejects_bytes += Buffer.byteLength(text);
      }
      this.checkpoint.line = chunk.lastLine;
      this.acknowledgedBytes = chunk.endBytes;
      this.checkpoint.rejected += chunk.rejects.length;
      this.checkpoint.sent += chunk.sent;
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

/** The sender of a distinct id (FNV-1a of its text): the same one for the whole import. */
function laneOf(distinctId: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < distinctId.length; i++) hash = Math.imul(hash ^ distinctId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}
