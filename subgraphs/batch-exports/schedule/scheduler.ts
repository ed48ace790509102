import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BatchExport } from '../exports/batch-export.entity.js';
import { queueRun } from '../runs/run.jobs.js';
import { STALE_AFTER_SECONDS } from '../runs/run.lease.js';
import type { DataInterval } from './interval.js';
import { dueIntervals } from './export-intervals.js';

const RUNS = '"batch_exports"."batch_export_runs"';

/**
 * Makes the runs of an export's intervals that have ended, in the caller's transaction, with the
 * export locked: `scheduled_until` moves to the last one's end, so each interval gets one
 * scheduled run however many processes schedule at once (and the unique key holds anyway).
 */
export async function scheduleExport(em: EntityManager, batchExport: BatchExport, now: Date): Promise<string[]> {
  const intervals = dueIntervals(batchExport, now);
  if (intervals.length === 0) return [];
  const ids = await insertRuns(em, batchExport, intervals, 'schedule', null);
  batchExport.scheduled_until = intervals.at(-1)!.end;
  await em.execute('update "batch_exports"."batch_exports" set scheduled_until = ? where id = ?', [batchExport.scheduled_until, batchExport.id]);
  return ids;
}

/** Inserts runs of intervals (skipping any the export has from the same origin), answering the new ones' ids. */
export async function insertRuns(em: EntityManager, batchExport: BatchExport, intervals: DataInterval[], origin: string, backfillId: string | null): Promise<string[]> {
  if (intervals.length === 0) return [];
  const rows = await em.execute<{ id: string }[]>(
    `insert into ${RUNS} (id, batch_export_id, environment_id, origin, backfill_id, status, data_interval_start, data_interval_end, attempt, created_at, last_updated_at)
     select gen_random_uuid(), ?, ?, ?, ?::uuid, 'Starting', x.start_at, x.end_at, 0, now(), now()
       from jsonb_to_recordset(?::jsonb) as x(start_at timestamptz, end_at timestamptz)
     on conflict (batch_export_id, origin, data_interval_end) do nothing
     returning id`,
    [batchExport.id, batchExport.environment_id, origin, backfillId, JSON.stringify(intervals.map(({ start, end }) => ({ start_at: start, end_at: end })))],
  );
  return rows.map((row) => row.id);
}

/** One pass: the runs every unpaused export is due, each export in a transaction of its own, then their jobs. */
export async function scheduleDueExports(em: EntityManager, databaseUrl: string, now = new Date()): Promise<number> {
  const candidates = await em.fork().find(BatchExport, { paused: false, scheduled_until: { $lt: now } }, { fields: ['id', 'interval', 'interval_offset', 'timezone', 'scheduled_until', 'start_at', 'end_at'] });
  // Only exports with an interval over are locked and scheduled; most have none most of the time.
  const due = candidates.filter((candidate) => dueIntervals(candidate, now).length > 0);
  let made = 0;
  for (const { id } of due) {
    const ids = await em.fork().transactional(async (tx) => {
      const locked = await tx.findOne(BatchExport, { id, paused: false }, { lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE });
      return locked ? scheduleExport(tx, locked, now) : [];
    });
    for (const runId of ids) await queueRun(databaseUrl, runId);
    made += ids.length;
  }
  return made;
}

/**
 * Queues again what lost its job: runs waiting to start for a minute, retries past their time,
 * and runs whose worker fell silent (a process that died). Queued jobs are unique per run, so a
 * run that is queued already is not queued twice.
 */
export async function sweepRuns(em: EntityManager, databaseUrl: string): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    // A backfill's runs go one after another: only its oldest waiting run, and none while one runs.
    `(select id from (select distinct on (coalesce(r.backfill_id, r.id)) r.id, r.created_at from ${RUNS} r
                       where r.status = 'Starting' and r.last_updated_at < now() - interval '1 minute'
                         and (r.backfill_id is null or not exists (select 1 from ${RUNS} o where o.backfill_id = r.backfill_id and o.status = 'Running'))
                       order by coalesce(r.backfill_id, r.id), r.data_interval_end) waiting
       order by created_at limit 100)
     union all (select id from ${RUNS} where status = 'FailedRetryable' and retry_at < now() - interval '30 seconds' limit 100)
     union all (select id from ${RUNS} where status = 'Running' and heartbeat_at < now() - interval '${STALE_AFTER_SECONDS} seconds' limit 100)`,
  );
  for (const { id } of rows) await queueRun(databaseUrl, id);
  return rows.length;
}
