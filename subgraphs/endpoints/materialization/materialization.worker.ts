import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { openJobQueue, type JobQueue } from '../../shared/jobs/job-queue.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import type { Worker, WorkerRuntime } from '../../shared/subgraph/define.js';
import { projectsFacade } from '../../projects/facade.js';
import { EndpointVersion, MaterializationState, SYNC_FREQUENCIES } from '../endpoints/endpoint-version.entity.js';
import { MAX_RESULT_ROWS } from '../hogql/hogql.limits.js';
import { warnWithoutReaderRole } from '../queries/query.executor.js';
import { prepareQuery } from '../queries/query.node.js';
import { CLEANUP_CRON, CLEANUP_QUEUE, cleanUpRunData } from '../runs/run-data.cleanup.js';
import { runQuery } from '../queries/query.runner.js';
import { REFRESH_QUEUE, scheduleRefresh, useJobQueue, type RefreshJob } from './materialization.jobs.js';
import { MaterializationService } from './materialization.service.js';
import { replaceMaterializedRows } from './materialized-rows.repository.js';

/**
 * Refreshes materialized versions on the shared job queue: each refresh is a job due at the
 * version's `refresh_due_at`, taken by one process; when it ends it queues the next one. At start
 * and every five minutes, refreshes overdue by more than a minute are queued again (a send that
 * failed, a job that ran out of tries, one asked for where no worker ran); the version's due time,
 * checked under a row lock before anything is kept, makes duplicates harmless.
 */
export function startMaterializationWorker(runtime: WorkerRuntime): Worker {
  const databaseUrl = runtime.orm.config.get('clientUrl')!;
  let queue: JobQueue | undefined;
  const opening = openJobQueue(runtime.orm, runtime.log);
  useJobQueue(databaseUrl, opening);
  const opened = (async () => {
    queue = await opening;
    await queue.work<RefreshJob>(REFRESH_QUEUE, (job) => refresh(runtime.orm.em.fork(), runtime.pubsub, runtime.log, job, runtime.config.ENDPOINT_MATERIALIZATION_TIMEOUT_SECONDS * 1000));
    await queue.every(CLEANUP_QUEUE, CLEANUP_CRON, async () => {
      const dropped = await cleanUpRunData(runtime.orm.em.fork());
      runtime.log.info(dropped, 'endpoint answers and run records past their time dropped');
    });
    await queue.every(SWEEP_QUEUE, SWEEP_CRON, () => sweep(runtime.orm.em.fork()));
    await sweep(runtime.orm.em.fork());
    await warnWithoutReaderRole(runtime.orm.em.fork(), runtime.log);
  })();
  opened.catch((error: unknown) => runtime.log.error({ err: error }, 'materialization worker did not start'));
  return {
    async drain() {
      await opened;
      await queue!.drain(REFRESH_QUEUE);
    },
    async stop() {
      await opened.catch(() => undefined);
      useJobQueue(databaseUrl, null);
      await queue?.close();
    },
  };
}

const SWEEP_QUEUE = 'endpoint-materialization-sweep';
const SWEEP_CRON = '*/5 * * * *';
const OVERDUE_MS = 60_000;

async function sweep(em: EntityManager): Promise<void> {
  const overdue = await em.find(EndpointVersion, { is_materialized: true, refresh_due_at: { $lt: new Date(Date.now() - OVERDUE_MS) } });
  for (const version of overdue) await scheduleRefresh(databaseUrlOf(em), version.id, version.refresh_due_at!);
}

/** One refresh: claims the version at its due time, runs its query (for at most `timeoutMs`: it reads more than a run should), keeps the rows, queues the next. */
export async function refresh(em: EntityManager, pubsub: PubSub, log: Logger, job: RefreshJob, timeoutMs: number): Promise<void> {
  const version = await em.findOne(EndpointVersion, { id: job.versionId, is_materialized: true, refresh_due_at: new Date(job.due) }, { populate: ['endpoint'] });
  if (!version) return; // stale: switched off, deleted, or due at another time now
  const endpoint = version.endpoint.getEntity();
  const service = new MaterializationService(databaseUrlOf(em), pubsub, log);
  if (version.materialization_status !== MaterializationState.Running) {
    version.materialization_status = MaterializationState.Running;
    await em.flush();
    await service.publish(endpoint, version, true);
  }
  const next = new Date(Date.now() + SYNC_FREQUENCIES[version.sync_frequency ?? '24hour'] * 1000);
  let kept: boolean;
  try {
    const overview = await projectsFacade.environmentOverview(em, endpoint.environment_id);
    const prepared = await prepareQuery(endpoint.environment_id, version.query);
    const result = await runQuery(em, log, endpoint.environment_id, prepared, { variables: {}, limit: MAX_RESULT_ROWS, timezone: timezoneOf(overview), timeoutMs });
    const completed = {
      materialization_status: MaterializationState.Completed,
      last_materialized_at: new Date(),
      materialization_error: null,
      materialized_columns: result.columns,
      materialized_has_more: result.hasMore,
      refresh_due_at: next,
    };
    kept = await keepIfStillDue(em, version, job, completed, result.rows);
    if (kept) log.info({ endpoint: endpoint.name, version: version.version, rows: result.rows.length, ms: Math.round(result.ms) }, 'endpoint materialized');
  } catch (error) {
    // The query's own failures are the endpoint's state; anything else (the database away) is retried by the queue.
    if (!(error instanceof AppError)) throw error;
    kept = await keepIfStillDue(em, version, job, { materialization_status: MaterializationState.Failed, materialization_error: error.message, refresh_due_at: next });
    if (kept) log.warn({ endpoint: endpoint.name, version: version.version, err: error.message }, 'endpoint materialization failed');
  }
  if (!kept) return;
  await service.publish(endpoint, version, true);
  await scheduleRefresh(databaseUrlOf(em), version.id, next);
}

/**
 * Writes the refresh's outcome (and its rows) if the version is still materialized and due when
 * this job was: checked under a row lock, so that a change made while the query ran (switched off,
 * a new version, another refresh of the same due time) wins and this refresh leaves nothing behind.
 */
async function keepIfStillDue(em: EntityManager, version: EndpointVersion, job: RefreshJob, outcome: Partial<EndpointVersion>, rows?: unknown[][]): Promise<boolean> {
  return em.transactional(async (tx) => {
    const [still] = await tx.execute<{ id: string }[]>(
      'select id from "endpoints"."endpoint_versions" where id = ? and is_materialized and refresh_due_at = ? for update',
      [version.id, new Date(job.due)],
    );
    if (!still) return false;
    if (rows) await replaceMaterializedRows(tx, version.id, version.environment_id, rows);
    Object.assign(version, outcome);
    await tx.flush();
    return true;
  });
}

export function databaseUrlOf(em: EntityManager): string {
  return em.config.get('clientUrl')!;
}

function timezoneOf(overview: { settings?: Record<string, unknown> } | null): string {
  const zone = overview?.settings?.timezone;
  return typeof zone === 'string' && zone ? zone : 'UTC';
}
