import type { JobQueue } from '../../shared/jobs/job-queue.js';

/** The queue of refreshes of materialized versions (on the shared job queue). */
export const REFRESH_QUEUE = 'endpoint-materialization-refresh';

/** A refresh of a version, due at `due`: stale (and skipped) once the version is due at another time. */
export interface RefreshJob {
  versionId: string;
  due: string;
}

/** The job queue of this process, while its materialization worker runs. */
let active: JobQueue | null = null;

export function useJobQueue(queue: JobQueue | null): void {
  active = queue;
}

/**
 * Queues the refresh of a version at its due time. Without a worker in this process (a command
 * line tool) nothing is queued: the worker's sweep at start queues every due refresh.
 */
export async function scheduleRefresh(versionId: string, due: Date): Promise<void> {
  if (!active) return;
  const job: RefreshJob = { versionId, due: due.toISOString() };
  // A refresh is taken for dead (and tried again) only well after the longest refresh would have ended.
  await active.send(REFRESH_QUEUE, job, { startAfter: due, retryLimit: 3, retryDelaySeconds: 30, expireInSeconds: 3600 + 600 });
}
