import type { Worker, WorkerRuntime } from '../../shared/subgraph/define.js';
import { startPeriodicWorker } from '../../shared/subgraph/periodic.worker.js';
import { purgeExpiredSummaries } from './summary.cache.js';

const PURGE_EVERY_MS = 10 * 60 * 1000;

/** Drops expired summaries from PostgreSQL now and then (reads already ignore them). */
export function startSummaryCachePurge({ orm, log }: WorkerRuntime): Worker {
  return startPeriodicWorker({
    run: async () => {
      const removed = await purgeExpiredSummaries(orm.em.fork());
      if (removed > 0) log.debug({ removed }, 'expired summaries purged');
    },
    everyMs: PURGE_EVERY_MS,
    log,
    failure: 'summary purge failed',
  });
}
