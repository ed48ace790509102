import { openJobQueue, setWorkingQueue, type JobQueue } from '../../shared/jobs/job-queue.js';
import type { Worker, WorkerRuntime } from '../../shared/subgraph/define.js';
import { startPeriodicWorker } from '../../shared/subgraph/periodic.worker.js';
import { executeRun, type RunRuntime } from '../runs/run.executor.js';
import { JOB_OWNER, RUN_QUEUE, type RunJob } from '../runs/run.jobs.js';
import type { RunLease } from '../runs/run.lease.js';
import { scheduleDueExports, sweepRuns } from './scheduler.js';

/** How often the scheduler looks for ended intervals and runs that lost their job. */
const TICK_MS = 10_000;

/**
 * Batch exports where the subgraph runs: runs are jobs of the shared job queue, worked
 * BATCH_EXPORT_CONCURRENCY at a time; every TICK_MS the scheduler makes the runs of intervals
 * that ended and queues again what lost its job (a worker that died, a send that failed). On stop,
 * runs in progress are given back, for the next worker to take at once.
 */
export function startBatchExportWorker(runtime: WorkerRuntime): Worker {
  const databaseUrl = runtime.orm.config.get('clientUrl')!;
  const active = new Set<RunLease>();
  const runRuntime = (): RunRuntime => ({ em: runtime.orm.em.fork(), log: runtime.log, config: runtime.config, active });
  let queue: JobQueue | undefined;
  const opening = openJobQueue(runtime.orm, runtime.log);
  setWorkingQueue(JOB_OWNER, databaseUrl, opening);
  const opened = (async () => {
    queue = await opening;
    await queue.work<RunJob>(RUN_QUEUE, (job) => executeRun(runRuntime(), job.runId), { concurrency: runtime.config.BATCH_EXPORT_CONCURRENCY, dedupe: true });
  })();
  opened.catch((error: unknown) => runtime.log.error({ err: error }, 'batch export worker did not start'));
  const scheduler = startPeriodicWorker({
    everyMs: TICK_MS,
    log: runtime.log,
    failure: 'batch export scheduling failed',
    run: async () => {
      await opened;
      const em = runtime.orm.em.fork();
      const made = await scheduleDueExports(em, databaseUrl);
      const requeued = await sweepRuns(em, databaseUrl);
      if (made + requeued > 0) runtime.log.debug({ made, requeued }, 'batch export runs queued');
    },
  });
  return {
    async drain() {
      await opened;
      await scheduler.drain();
      await queue!.drain(RUN_QUEUE);
    },
    async stop() {
      await scheduler.stop();
      await Promise.allSettled([...active].map((lease) => lease.release()));
      await opened.catch(() => undefined);
      setWorkingQueue(JOB_OWNER, databaseUrl, null);
      await queue?.close();
    },
  };
}
