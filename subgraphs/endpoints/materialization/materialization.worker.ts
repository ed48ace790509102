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
import { runQuery } from '../queries/query.runner.js';
import { REFRESH_QUEUE, scheduleRefresh, useJobQueue, type RefreshJob } from './materialization.jobs.js';
import { MaterializationService } from './materialization.service.js';
import { replaceMaterializedRows } from './materialized-rows.repository.js';

/**
 * Refreshes materialized versions on the shared job queue: each refresh is a job due at the
 * version's `refresh_due_at`, taken by one process; when it ends it queues the next one. At start
 * every due refresh is queued again (one lost with a process, or asked for where no worker ran);
 * the version's due time makes duplicates harmless.
 */
export function startMaterializationWorker(runtime: WorkerRuntime): Worker {
  let queue: JobQueue | undefined;
  const opened = (async () => {
    queue = await openJobQueue(runtime.orm, runtime.log);
    await queue.work<RefreshJob>(REFRESH_QUEUE, (job) => refresh(runtime.orm.em.fork(), runtime.pubsub, runtime.log, job, runtime.config.ENDPOINT_MATERIALIZATION_TIMEOUT_SECONDS * 1000));
    useJobQueue(queue);
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
      useJobQueue(null);
      await queue?.close();
    },
  };
}

async function sweep(em: EntityManager): Promise<void> {
  const due = await em.find(EndpointVersion, { is_materialized: true, refresh_due_at: { $ne: null } });
  for (const version of due) await scheduleRefresh(version.id, version.refresh_due_at!);
}

/** One refresh: claims the version at its due time, runs its query (for at most `timeoutMs`: it reads more than a run should), keeps the rows, queues the next. */
export async function refresh(em: EntityManager, pubsub: PubSub, log: Logger, job: RefreshJob, timeoutMs: number): Promise<void> {
  const version = await em.findOne(EndpointVersion, { id: job.versionId, is_materialized: true, refresh_due_at: new Date(job.due) }, { populate: ['endpoint'] });
  if (!version) return; // stale: switched off, deleted, or due at another time now
  const endpoint = version.endpoint.getEntity();
  const service = new MaterializationService(pubsub, log);
  if (version.materialization_status !== MaterializationState.Running) {
    version.materialization_status = MaterializationState.Running;
    await em.flush();
    await service.publish(endpoint, version, true);
  }
  const next = new Date(Date.now() + SYNC_FREQUENCIES[version.sync_frequency ?? '24hour'] * 1000);
  try {
    const overview = await projectsFacade.environmentOverview(em, endpoint.environment_id);
    const prepared = await prepareQuery(version.query);
    const result = await runQuery(em, log, endpoint.environment_id, prepared, {
      variables: {},
      limit: MAX_RESULT_ROWS,
      timezone: timezoneOf(overview),
      timeoutMs,
    });
    await em.transactional(async (tx) => {
      await replaceMaterializedRows(tx, version.id, endpoint.environment_id, result.rows);
      Object.assign(version, {
        materialization_status: MaterializationState.Completed,
        last_materialized_at: new Date(),
        materialization_error: null,
        materialized_columns: result.columns,
        materialized_has_more: result.hasMore,
        refresh_due_at: next,
      });
      await tx.flush();
    });
    log.info({ endpoint: endpoint.name, version: version.version, rows: result.rows.length, ms: Math.round(result.ms) }, 'endpoint materialized');
  } catch (error) {
    // The query's own failures are the endpoint's state; anything else (the database away) is retried by the queue.
    if (!(error instanceof AppError)) throw error;
    Object.assign(version, { materialization_status: MaterializationState.Failed, materialization_error: error.message, refresh_due_at: next });
    await em.flush();
    log.warn({ endpoint: endpoint.name, version: version.version, err: error.message }, 'endpoint materialization failed');
  }
  await service.publish(endpoint, version, true);
  await scheduleRefresh(version.id, next);
}

function timezoneOf(overview: { settings?: Record<string, unknown> } | null): string {
  const zone = overview?.settings?.timezone;
  return typeof zone === 'string' && zone ? zone : 'UTC';
}
