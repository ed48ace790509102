import { workingQueue } from '../../shared/jobs/job-queue.js';

/** Runs to work, on the shared job queue: one job a run, queued once however often it is sent. */
export const RUN_QUEUE = 'batch-export-run';
export const JOB_OWNER = 'batch-exports';

export interface RunJob {
  runId: string;
}

/**
 * Queues a run (at `startAfter`, a retry's time) where a batch export worker runs. A job of a run
 * that is already queued is not queued twice; a job of a run someone else holds, or that has
 * ended, finds nothing to take. Without a worker in this process nothing is queued: the worker's
 * sweep queues every run that waits.
 */
export async function queueRun(databaseUrl: string, runId: string, startAfter?: Date): Promise<void> {
  const queue = await workingQueue(JOB_OWNER, databaseUrl);
  if (!queue) return;
  const job: RunJob = { runId };
  // The run's own heartbeat tells a dead worker: the job's expiry is a backstop, long past any run.
  await queue.send(RUN_QUEUE, job, { startAfter, singletonKey: runId, retryLimit: 5, retryDelaySeconds: 10, expireInSeconds: 6 * 3600 });
}
