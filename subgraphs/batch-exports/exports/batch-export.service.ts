import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { endpointsFacade } from '../../endpoints/facade.js';
import { requireUserId } from '../../shared/subgraph/access.js';
import type { Actor } from '../../shared/auth/actor.js';
import { ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import { BackfillService } from '../backfills/backfill.service.js';
import { boundaryAtOrBefore } from '../schedule/interval.js';
import { specOf } from '../schedule/export-intervals.js';
import { scheduleExport } from '../schedule/scheduler.js';
import { queueRun } from '../runs/run.jobs.js';
import { environmentOf, findExport } from './batch-export.access.js';
import { BatchExport } from './batch-export.entity.js';
import type { BatchExportSettingsArgs, ListBatchExportsArgs, UnpauseBatchExportArgs, UpdateBatchExportArgs } from './batch-export.inputs.js';
import { toRecords } from './batch-export.mapper.js';
import type { BatchExportRecord, PausedRecord } from './batch-export.record.js';
import { checkDateTime, checkFilters, checkInterval, checkModel, checkName, checkTimezone, intervalOffset } from './batch-export.rules.js';
import { destinationOf } from '../destinations/destinations.js';
import { readDestination } from './destination.input.js';
import { findPage } from '../../shared/db/find-page.js';

/** The rules of batch exports; every method is scoped to an environment the actor reaches. */
export class BatchExportService {
  constructor(
    private readonly em: EntityManager,
    private readonly log: Logger,
  ) {}

  private get databaseUrl(): string {
    return this.em.config.get('clientUrl')!;
  }

  async list(actor: Actor, args: ListBatchExportsArgs): Promise<Page<BatchExportRecord>> {
    const environment = await environmentOf(this.em, actor, args.project_id);
    const window = pageWindow(args);
    const [items, count] = await findPage(this.em, BatchExport, { environment_id: environment.id }, { orderBy: { created_at: 'desc', id: 'asc' }, ...window });
    return toPage(await toRecords(this.em, items), count, window);
  }

  async get(actor: Actor, environmentId: number, id: string): Promise<BatchExportRecord> {
    return (await toRecords(this.em, [await findExport(this.em, actor, environmentId, id)]))[0]!;
  }

  async create(actor: Actor, args: BatchExportSettingsArgs): Promise<BatchExportRecord> {
    const environment = await environmentOf(this.em, actor, args.project_id);
    if (args.destination === undefined || args.destination === null) throw new ValidationError('This field is required.', 'destination', 'required');
    const item = Object.assign(new BatchExport(), {
      environment_id: environment.id,
      project_id: environment.project_id,
      name: checkName(args.name, true)!,
      model: checkModel(args.model) ?? 'events',
      interval: checkInterval(args.interval, true)!,
      created_by_id: requireUserId(actor),
    });
    await this.apply(item, args, null);
    const now = new Date();
    item.scheduled_until = boundaryAtOrBefore(specOf(item), item.start_at && item.start_at > now ? item.start_at : now);
    if (args.paused) {
      item.paused = true;
      item.last_paused_at ??= now;
    }
    await this.em.persistAndFlush(item);
    this.log.info({ batch_export: item.id, destination: item.destination_type, interval: item.interval }, 'batch export created');
    return this.get(actor, args.project_id, item.id);
  }

  async update(actor: Actor, args: UpdateBatchExportArgs): Promise<BatchExportRecord> {
    const item = await findExport(this.em, actor, args.project_id, args.id);
    const previousInterval = item.interval;
    const name = checkName(args.name, false);
    if (name !== undefined) item.name = name;
    const model = checkModel(args.model);
    if (model !== undefined) item.model = model;
    const interval = checkInterval(args.interval, false);
    if (interval !== undefined) item.interval = interval;
    // Offsets left out of a PATCH stay, unless the interval changed (each interval has its own).
    await this.apply(item, args, { offset: item.interval === previousInterval ? item.interval_offset : null });
    await this.em.flush();
    if (args.paused === true) await this.pause(actor, args.project_id, args.id);
    if (args.paused === false) await this.unpause(actor, { project_id: args.project_id, id: args.id });
    return this.get(actor, args.project_id, item.id);
  }

  /**
   * The settings a create and an update share, checked together (the destination against the
   * model, the offsets against the interval); `stored` is what an update keeps (null on create).
   */
  private async apply(item: BatchExport, args: BatchExportSettingsArgs, stored: { offset: number | null } | null): Promise<void> {
    const creating = stored === null;
    if (args.destination !== undefined && args.destination !== null) {
      const input = readDestination(args.destination, creating ? null : item);
      Object.assign(item, { destination_type: input.destination.type, destination_config: input.open, destination_secrets: input.sealed });
    }
    const timezone = checkTimezone(args.timezone);
    if (timezone !== undefined) item.timezone = timezone;
    item.interval_offset = intervalOffset(item.interval as never, args.offset_day, args.offset_hour, stored?.offset ?? null);
    const start = checkDateTime(args.start_at, 'start_at');
    if (start !== undefined) item.start_at = start;
    const end = checkDateTime(args.end_at, 'end_at');
    if (end !== undefined) item.end_at = end;
    if (item.start_at && item.end_at && item.start_at >= item.end_at) throw new ValidationError('start_at must be before end_at.', 'end_at');
    const pausedAt = checkDateTime(args.last_paused_at, 'last_paused_at');
    if (pausedAt !== undefined) item.last_paused_at = pausedAt;
    const filters = checkFilters(args.filters);
    if (filters !== undefined) item.filters = filters;
    if (args.hogql_query !== undefined) item.hogql_query = args.hogql_query === null || args.hogql_query.trim() === '' ? null : args.hogql_query;
    await this.checkWhat(item);
  }

  /** The model, query and filters against each other and the destination. */
  private async checkWhat(item: BatchExport): Promise<void> {
    const destination = destinationOf(item.destination_type)!;
    if (!destination.models.includes(item.model)) throw new ValidationError(`${destination.type} batch exports only support the ${destination.models.join(' and ')} model${destination.models.length > 1 ? 's' : ''}`, 'model');
    item.schema = null;
    if (item.hogql_query !== null) {
      if (item.model !== 'events') throw new ValidationError('A hogql_query exports events: the model must be events.', 'hogql_query');
      if (!destination.takesQuery) throw new ValidationError(`${destination.type} batch exports send their own fields and take no hogql_query.`, 'hogql_query');
      const query = await endpointsFacade.checkExportQuery(item.environment_id, item.hogql_query);
      item.schema = { fields: query.fields, values: {}, hogql_query: query.hogql_query };
    }
    if (item.filters !== null && item.filters.length > 0) {
      if (item.model !== 'events') throw new ValidationError('Filters apply to the events model only.', 'filters');
      endpointsFacade.checkExportFilters(item.filters);
    }
  }

  async delete(actor: Actor, environmentId: number, id: string): Promise<void> {
    const item = await findExport(this.em, actor, environmentId, id);
    // Runs and backfills go with it (foreign keys); a run in progress loses its lease and stops.
    await this.em.nativeDelete(BatchExport, { id: item.id });
    this.log.info({ batch_export: item.id }, 'batch export deleted');
  }

  /**
   * Stops scheduling: first every interval already over gets its run, so that pausing loses
   * nothing that was due; runs in progress go on. Idempotent, as PostHog's.
   */
  async pause(actor: Actor, environmentId: number, id: string): Promise<PausedRecord> {
    const found = await findExport(this.em, actor, environmentId, id);
    const queued = await this.em.transactional(async (tx) => {
      const item = await tx.findOneOrFail(BatchExport, found.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (item.paused) return [];
      const ids = await scheduleExport(tx, item, new Date());
      item.paused = true;
      item.last_paused_at = new Date();
      return ids;
    });
    for (const runId of queued) await queueRun(this.databaseUrl, runId);
    return { paused: true };
  }

  /**
   * Resumes scheduling from the interval in progress; what the schedule skipped while paused is
   * exported too when `backfill` is asked for (one backfill over exactly that gap).
   */
  async unpause(actor: Actor, args: Pick<UnpauseBatchExportArgs, 'project_id' | 'id' | 'backfill'>): Promise<PausedRecord> {
    const found = await findExport(this.em, actor, args.project_id, args.id);
    const gap = await this.em.transactional(async (tx) => {
      const item = await tx.findOneOrFail(BatchExport, found.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!item.paused) return null;
      const skippedFrom = item.scheduled_until;
      const resumeAt = boundaryAtOrBefore(specOf(item), new Date());
      item.paused = false;
      if (resumeAt > item.scheduled_until) item.scheduled_until = resumeAt;
      return skippedFrom < item.scheduled_until ? { start: skippedFrom, end: item.scheduled_until } : null;
    });
    if (gap && args.backfill) await new BackfillService(this.em, this.log).startGap(found, gap);
    return { paused: false };
  }
}
