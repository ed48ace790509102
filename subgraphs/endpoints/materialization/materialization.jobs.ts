import { setWorkingQueue, workingQueue, type JobQueue } from '../../shared/jobs/job-queue.js';

/** The queue of refreshes of materialized versions (on the shared job queue). */
export const REFRESH_QUEUE = 'endpoint-materialization-refresh';

/** A refresh of a version, due at `due`: stale (and skipped) once the version is due at another time. */
export interface RefreshJob {
  versionId: string;
  due: string;
}

export function useJobQueue(databaseUrl: string, queue: Promise<JobQueue> | null): void {
  setWorkingQueue('endpoints', databaseUrl, queue);
}

/**
 * Queues the refresh of a version at its due time, on the job queue of its database. Without a
 * worker for it in this process (a command line tool) nothing is queued: a worker's sweep queues
 * every overdue refresh.
 */
export async function scheduleRefresh(databaseUrl: string, versionId: string, due: Date): Promise<void> {
  const queue = await workingQueue('endpoints', databaseUrl);
  if (!queue) return;
  const job: RefreshJob = { versionId, due: due.toISOString() };
  // A refresh is taken for dead (and tried again) only well after the longest refresh would have ended.
  await queue.send(REFRESH_QUEUE, job, { startAfter: due, retryLimit: 3, retryDelaySeconds: 30, expireInSeconds: 3600 + 600 });
}
