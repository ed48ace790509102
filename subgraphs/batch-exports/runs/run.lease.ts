import type { EntityManager } from '@mikro-orm/postgresql';
import type { JsonObject } from '../../shared/validation.js';
import { RunStatus } from './batch-export-run.entity.js';

const RUNS = '"batch_exports"."batch_export_runs"';

/** How often a worker says it still holds a run, and how long a silent one is trusted. */
export const HEARTBEAT_MS = 5_000;
export const STALE_AFTER_SECONDS = 30;

/** Thrown into a run whose worker no longer holds it: cancelled, deleted, or taken over after a silence. */
export class LeaseLostError extends Error {
  constructor() {
    super('The run is no longer held by this worker.');
  }
}

/**
 * A worker's hold on a run: taken by raising the run's `attempt` (only a run waiting to start, due
 * for its retry, or held by a worker silent for STALE_AFTER_SECONDS can be taken), kept by a
 * heartbeat, and checked on every write: a write whose attempt is no longer the run's changes
 * nothing and aborts the work.
 */
export class RunLease {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  /** When a heartbeat last reached the database. */
  private lastBeat = Date.now();

  private constructor(
    private readonly em: EntityManager,
    readonly runId: string,
    readonly attempt: number,
    /** What the destination kept of earlier attempts, as it stood when this one took the run. */
    readonly cursor: JsonObject | null,
  ) {}

  static async take(em: EntityManager, runId: string): Promise<RunLease | null> {
    const [taken] = await em.execute<{ attempt: number; cursor: JsonObject | null }[]>(
      `update ${RUNS} set status = 'Running', attempt = attempt + 1, heartbeat_at = now(), last_updated_at = now(), retry_at = null
        where id = ? and (status = 'Starting' or (status = 'FailedRetryable' and retry_at <= now())
          or (status = 'Running' and heartbeat_at < now() - interval '${STALE_AFTER_SECONDS} seconds'))
        returning attempt, cursor`,
      [runId],
    );
    if (!taken) return null;
    const lease = new RunLease(em, runId, taken.attempt, taken.cursor);
    lease.timer = setInterval(() => void lease.beat(), HEARTBEAT_MS);
    return lease;
  }

  /** Aborted once the run is no longer this worker's. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private async beat(): Promise<void> {
    try {
      if (await this.update('heartbeat_at = now()', [])) this.lastBeat = Date.now();
      else this.lose();
    } catch {
      // The database away for a moment: the next beat tries again. Past the time others trust a
      // silent worker, less a margin, this one stops: another may have taken the run over.
      if (Date.now() - this.lastBeat > (STALE_AFTER_SECONDS - 10) * 1000) this.lose();
    }
  }

  private lose(): void {
    if (!this.controller.signal.aborted) this.controller.abort(new LeaseLostError());
  }

  /** Keeps the destination's progress with the run (refused once the run is not this worker's). */
  async saveCursor(cursor: JsonObject): Promise<void> {
    if (!(await this.update('cursor = ?::jsonb', [JSON.stringify(cursor)]))) {
      this.lose();
      throw new LeaseLostError();
    }
  }

  async complete(records: number, bytes: number, cursor: JsonObject | null): Promise<boolean> {
    return this.finish(`status = '${RunStatus.Completed}', records_completed = ?, bytes_exported = ?, cursor = coalesce(?::jsonb, cursor), latest_error = null, finished_at = now()`, [
      records,
      bytes,
      cursor ? JSON.stringify(cursor) : null,
    ]);
  }

  async fail(error: string): Promise<boolean> {
    return this.finish(`status = '${RunStatus.Failed}', latest_error = ?, finished_at = now()`, [error]);
  }

  /** Marks the run for another try at `retryAt`. */
  async retryLater(error: string, retryAt: Date): Promise<boolean> {
    return this.finish(`status = '${RunStatus.FailedRetryable}', latest_error = ?, retry_at = ?`, [error, retryAt]);
  }

  /** Gives the run back untouched, for the next worker to take at once (this process is stopping). */
  async release(): Promise<boolean> {
    this.lose();
    return this.finish(`status = '${RunStatus.Starting}', heartbeat_at = null`, []);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async finish(set: string, values: unknown[]): Promise<boolean> {
    this.stop();
    return this.update(set, values);
  }

  private async update(set: string, values: unknown[]): Promise<boolean> {
    const rows = await this.em.execute<{ id: string }[]>(
      `update ${RUNS} set ${set}, last_updated_at = now() where id = ? and attempt = ? and status = 'Running' returning id`,
      [...values, this.runId, this.attempt],
    );
    return rows.length > 0;
  }
}
