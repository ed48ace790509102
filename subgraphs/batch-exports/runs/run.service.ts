import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import { isUuid } from '../../shared/validation.js';
import { settleBackfill } from '../backfills/backfill.progress.js';
import { BackfillService } from '../backfills/backfill.service.js';
import type { BackfillCreatedRecord } from '../backfills/backfill.record.js';
import { findExport } from '../exports/batch-export.access.js';
import { BatchExportRun, RunStatus } from './batch-export-run.entity.js';
import type { ListRunsArgs, RunArgs } from './run.inputs.js';
import { toRunRecord } from './run.mapper.js';
import type { BatchExportRunRecord, CancelledRecord } from './run.record.js';
import { findPage } from '../../shared/db/find-page.js';

const ORDERINGS: Record<string, Record<string, 'asc' | 'desc'>> = {
  '-created_at': { created_at: 'desc', data_interval_end: 'desc' },
  created_at: { created_at: 'asc', data_interval_end: 'asc' },
  '-data_interval_start': { data_interval_end: 'desc', created_at: 'desc' },
  data_interval_start: { data_interval_end: 'asc', created_at: 'asc' },
};

const STATUSES = Object.values(RunStatus) as string[];

/** Reading, retrying and cancelling the runs of an export the actor reaches. */
export class RunService {
  constructor(
    private readonly em: EntityManager,
    private readonly log: Logger,
  ) {}

  async list(actor: Actor, args: ListRunsArgs): Promise<Page<BatchExportRunRecord>> {
    const item = await findExport(this.em, actor, args.project_id, args.id);
    const ordering = args.ordering ?? '-created_at';
    if (!Object.hasOwn(ORDERINGS, ordering)) throw new ValidationError(`"${ordering}" is not a valid choice.`, 'ordering', 'invalid_choice');
    if (args.status && !STATUSES.includes(args.status)) throw new ValidationError(`"${args.status}" is not a valid choice.`, 'status', 'invalid_choice');
    const window = pageWindow(args);
    const filter = { batch_export: item.id, ...(args.status ? { status: args.status as RunStatus } : {}) };
    const [runs, count] = await findPage(this.em, BatchExportRun, filter, { orderBy: { ...ORDERINGS[ordering]!, id: 'asc' }, ...window });
    return toPage(runs.map(toRunRecord), count, window);
  }

  async get(actor: Actor, args: RunArgs): Promise<BatchExportRunRecord> {
    return toRunRecord(await this.find(actor, args));
  }

  /** Exports the run's interval again, as a backfill of that interval (PostHog's retry). */
  async retry(actor: Actor, args: RunArgs): Promise<BackfillCreatedRecord> {
    const run = await this.find(actor, args);
    const interval = { start: run.data_interval_start ?? run.data_interval_end, end: run.data_interval_end };
    const backfill = await new BackfillService(this.em, this.log).startRuns(run.batch_export.getEntity(), interval.start, interval.end, [interval]);
    return { backfill_id: backfill.id };
  }

  /** Stops a run that has not finished: a worker holding it leaves off at its next heartbeat, writing nothing more. */
  async cancel(actor: Actor, args: RunArgs): Promise<CancelledRecord> {
    const run = await this.find(actor, args);
    const cancelled = await this.em.nativeUpdate(
      BatchExportRun,
      { id: run.id, status: { $in: [RunStatus.Starting, RunStatus.Running, RunStatus.FailedRetryable] } },
      { status: RunStatus.Cancelled, finished_at: new Date() },
    );
    if (cancelled === 0) throw new ValidationError(`Cannot cancel a run that is in '${run.status}' status`, null);
    if (run.backfill_id) await settleBackfill(this.em, this.em.config.get('clientUrl')!, run.backfill_id);
    return { cancelled: true };
  }

  private async find(actor: Actor, args: RunArgs): Promise<BatchExportRun> {
    const item = await findExport(this.em, actor, args.project_id, args.id);
    const run = isUuid(args.run_id) ? await this.em.findOne(BatchExportRun, { id: args.run_id, batch_export: item.id }, { populate: ['batch_export'] }) : null;
    if (!run) throw new NotFoundError();
    return run;
  }
}
