import type { EntityManager } from '@mikro-orm/postgresql';
import { MAX_CACHE_AGE_SECONDS } from '../endpoints/endpoint.rules.js';

/** The queue of the hourly clean-up of answers and run records nothing reads any more. */
export const CLEANUP_QUEUE = 'endpoint-run-data-cleanup';
export const CLEANUP_CRON = '17 * * * *';

/** The run log is kept a month past the six `last_execution_times` looks back over. */
const RUN_LOG_MONTHS = 7;

/** Drops cached answers older than the longest cache age and run records older than RUN_LOG_MONTHS. */
export async function cleanUpRunData(em: EntityManager): Promise<{ answers: number; runs: number }> {
  const answers = await em.execute<{ count: number }>(
    `delete from "endpoints"."cached_results" where computed_at < now() - make_interval(secs => ?)`,
    [MAX_CACHE_AGE_SECONDS],
    'run',
  );
  const runs = await em.execute<{ count: number }>(`delete from "endpoints"."endpoint_runs" where started_at < now() - make_interval(months => ?)`, [RUN_LOG_MONTHS], 'run');
  return { answers: affected(answers), runs: affected(runs) };
}

function affected(result: unknown): number {
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}
