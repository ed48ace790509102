import type { Worker, WorkerRuntime } from '../../shared/subgraph/define.js';
import { purgeExpiredSummaries } from './summary.cache.js';

const PURGE_EVERY_MS = 10 * 60 * 1000;

/** Drops expired summaries from PostgreSQL now and then (reads already ignore them). */
export function startSummaryCachePurge({ orm, log }: WorkerRuntime): Worker {
  let running: Promise<void> | undefined;
  const pass = () => {
    running ??= purgeExpiredSummaries(orm.em.fork())
      .then((removed) => {
        if (removed > 0) log.debug({ removed }, 'expired summaries purged');
      })
      .catch((error: unknown) => log.warn({ err: error }, 'summary purge failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void pass(), PURGE_EVERY_MS);
  timer.unref();
  return {
    drain: async () => {
      await running;
      await pass();
    },
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
