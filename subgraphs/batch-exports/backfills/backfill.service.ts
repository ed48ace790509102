import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import { isUuid } from '../../shared/validation.js';
import { findExport } from '../exports/batch-export.access.js';
import { BatchExport } from '../exports/batch-export.entity.js';
import { checkDateTime } from '../exports/batch-export.rules.js';
import { BatchExportRun, RunStatus } from '../runs/batch-export-run.entity.js';
import { specOf } from '../schedule/export-intervals.js';
import { boundaryAtOrBefore, intervalsEndingIn, type DataInterval } from '../schedule/interval.js';
import { insertRuns } from '../schedule/scheduler.js';
import { BatchExportBackfill } from './batch-export-backfill.entity.js';
import type { BackfillArgs, CreateBackfillArgs, ListBackfillsArgs } from './backfill.inputs.js';
import { settleBackfill } from './backfill.progress.js';
import type { BackfillCreatedRecord, BackfillRecord } from './backfill.record.js';
import { findPage } from '../../shared/db/find-page.js';

/** Most runs one backfill makes (a year of hours). */
const MAX_BACKFILL_RUNS = 10_000;

/** Backfills: one run per interval of a past range, exported one after another. */
export class BackfillService {
  constructor(
    private readonly em: EntityManager,
    private readonly log: Logger,
  ) {}

  async create(actor: Actor, args: CreateBackfillArgs): Promise<BackfillCreatedRecord> {
    const item = await findExport(this.em, actor, args.project_id, args.id);
    const start = checkDateTime(args.start_at, 'start_at');
    const end = checkDateTime(args.end_at, 'end_at');
    if (!start) throw new ValidationError('This field is required.', 'start_at', 'required');
    if (!end) throw new ValidationError('Backfilling a BatchExport with no end date is not allowed', 'end_at');
    if (start >= end) throw new ValidationError("The initial backfill datetime 'start_at' must be before 'end_at'", 'start_at');
    if (end.getTime() > Date.now()) throw new ValidationError(`The provided 'end_at' (${end.toISOString()}) is in the future`, 'end_at');
    const spec = specOf(item);
    const intervals = intervalsEndingIn(spec, boundaryAtOrBefore(spec, start), end, MAX_BACKFILL_RUNS + 1);
    if (intervals.length > MAX_BACKFILL_RUNS) throw new ValidationError(`The range holds more than ${MAX_BACKFILL_RUNS} intervals of this export: backfill it in parts.`, 'start_at');
    const backfill = await this.startRuns(item, start, end, intervals);
    return { backfill_id: backfill.id };
  }

  /**
   * Backfills of exactly `[start, end)` (the time a paused export's schedule skipped): as many as
   * it takes, MAX_BACKFILL_RUNS intervals each, so that no part of a long gap is left out.
   */
  async startGap(item: BatchExport, gap: DataInterval): Promise<BatchExportBackfill[]> {
    const backfills: BatchExportBackfill[] = [];
    let from = gap.start;
    while (from < gap.end) {
      const intervals = intervalsEndingIn(specOf(item), from, gap.end, MAX_BACKFILL_RUNS).map(({ start, end }) => ({ start: start < from ? from : start, end }));
      if (intervals.length === 0) break;
      backfills.push(await this.startRuns(item, from, intervals.at(-1)!.end, intervals));
      from = intervals.at(-1)!.end;
    }
    return backfills;
  }

  /** A backfill of the given intervals (a run exported again covers its own interval, whatever the export's is now). */
  async startRuns(item: BatchExport, start: Date, end: Date, intervals: DataInterval[]): Promise<BatchExportBackfill> {
    const backfill = Object.assign(new BatchExportBackfill(), { batch_export: this.em.getReference(BatchExport, item.id, { wrapped: true }), environment_id: item.environment_id, start_at: start, end_at: end, total_runs: intervals.length });
    await this.em.transactional(async (tx) => {
      tx.persist(backfill);
      await tx.flush();
      await insertRuns(tx, item, intervals, backfill.id, backfill.id);
    });
    this.log.info({ batch_export: item.id, backfill: backfill.id, runs: intervals.length }, 'batch export backfill started');
    // Queues its first run (or, with none, ends it at once).
    await settleBackfill(this.em, this.em.config.get('clientUrl')!, backfill.id);
    return backfill;
  }

  async list(actor: Actor, args: ListBackfillsArgs): Promise<Page<BackfillRecord>> {
    const item = await findExport(this.em, actor, args.project_id, args.id);
    const window = pageWindow(args);
    const [backfills, count] = await findPage(this.em, BatchExportBackfill, { batch_export: item.id }, { orderBy: { created_at: 'desc', id: 'asc' }, ...window });
    return toPage(await this.records(backfills), count, window);
  }

  async get(actor: Actor, args: BackfillArgs): Promise<BackfillRecord> {
    return (await this.records([await this.find(actor, args)]))[0]!;
  }

  /** Cancels a running backfill's runs that have not finished; answers PostHog's `{cancelled: true}`. */
  async cancel(actor: Actor, args: BackfillArgs): Promise<{ cancelled: boolean }> {
    const backfill = await this.find(actor, args);
    if (backfill.status !== RunStatus.Running) throw new ValidationError(`Cannot cancel a backfill that is in '${backfill.status}' status`, null);
    await this.em.transactional(async (tx) => {
      await tx.nativeUpdate(BatchExportRun, { backfill_id: backfill.id, status: { $in: [RunStatus.Starting, RunStatus.Running, RunStatus.FailedRetryable] } }, { status: RunStatus.Cancelled, finished_at: new Date() });
      await tx.nativeUpdate(BatchExportBackfill, { id: backfill.id }, { status: RunStatus.Cancelled, finished_at: new Date() });
    });
    return { cancelled: true };
  }

  private async find(actor: Actor, args: BackfillArgs): Promise<BatchExportBackfill> {
    const item = await findExport(this.em, actor, args.project_id, args.id);
    const backfill = isUuid(args.backfill_id) ? await this.em.findOne(BatchExportBackfill, { id: args.backfill_id, batch_export: item.id }) : null;
    if (!backfill) throw new NotFoundError();
    return backfill;
  }

  private async records(backfills: BatchExportBackfill[]): Promise<BackfillRecord[]> {
    const ids = backfills.map((backfill) => backfill.id);
    const counts = ids.length === 0 ? [] : await this.em.execute<{ backfill_id: string; finished: number }[]>(
      `select backfill_id, count(*) filter (where status in ('Completed', 'Failed', 'Cancelled'))::int as finished from "batch_exports"."batch_export_runs" where backfill_id in (?) group by backfill_id`,
      [ids],
    );
    const finished = new Map(counts.map((row) => [row.backfill_id, row.finished]));
    return backfills.map((backfill) => {
      const done = finished.get(backfill.id) ?? 0;
      return {
        id: backfill.id,
        start_at: backfill.start_at,
        end_at: backfill.end_at,
        status: backfill.status,
        created_at: backfill.created_at,
        last_updated_at: backfill.last_updated_at,
        finished_at: backfill.finished_at,
        total_records_count: backfill.total_records_count === null ? null : Number(backfill.total_records_count),
        progress: backfill.total_runs > 0 ? { total_runs: backfill.total_runs, finished_runs: done, progress: done / backfill.total_runs } : null,
        batch_export: backfill.batch_export.id,
      };
    });
  }
}
