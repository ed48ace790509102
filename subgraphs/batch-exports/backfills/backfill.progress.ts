import type { EntityManager } from '@mikro-orm/postgresql';
import { queueRun } from '../runs/run.jobs.js';

/**
 * After one of a backfill's runs ended: queues its next waiting run (a backfill's runs go one
 * after another, oldest interval first), or, when none is left unfinished, records how the
 * backfill ended: `Failed` if a run failed, `Cancelled` if one was cancelled, else `Completed`.
 */
export async function settleBackfill(em: EntityManager, databaseUrl: string, backfillId: string): Promise<void> {
  const [next] = await em.execute<{ id: string }[]>(
    `select id from "batch_exports"."batch_export_runs" where backfill_id = ? and status = 'Starting' order by data_interval_end limit 1`,
    [backfillId],
  );
  if (next) return queueRun(databaseUrl, next.id);
  await em.execute(
    `update "batch_exports"."batch_export_backfills" b
        set status = case when s.failed > 0 then 'Failed' when s.cancelled > 0 then 'Cancelled' else 'Completed' end,
            total_records_count = s.records, finished_at = now(), last_updated_at = now()
       from (select count(*) filter (where status = 'Failed') as failed, count(*) filter (where status = 'Cancelled') as cancelled,
                    count(*) filter (where status not in ('Completed', 'Failed', 'Cancelled')) as open, coalesce(sum(records_completed), 0) as records
               from "batch_exports"."batch_export_runs" where backfill_id = ?) s
      where b.id = ? and b.status = 'Running' and s.open = 0`,
    [backfillId, backfillId],
  );
}
