import type { EntityManager } from '@mikro-orm/postgresql';

/** Past this, a transaction still open from before the interval's end is taken for stuck and the run goes on. */
const MAX_WAIT_SECONDS = 600;

/**
 * Whether an interval can be read: `settleMs` (BATCH_EXPORT_SETTLE_SECONDS) past its end, and no
 * writing transaction begun before its end still open. Events and persons are stamped with the
 * time their transaction began, by the database's clock (so the database's clock judges), and rows
 * inside `[start, end)` may arrive until each such transaction has ended. A transaction writes
 * from its first statement (an ingestion batch locks its project first), so the ones that will
 * write have an id. On ClickHouse an event's ingest time is stamped as its insert is sent, which
 * `settleMs` covers. Waits at most MAX_WAIT_SECONDS past the end.
 */
export async function isSettled(em: EntityManager, end: Date, settleMs: number): Promise<boolean> {
  const [state] = await em.execute<{ due: boolean; overdue: boolean; open: number }[]>(
    `select now() >= ?::timestamptz + ? * interval '1 millisecond' as due,
            now() >= ?::timestamptz + interval '${MAX_WAIT_SECONDS} seconds' as overdue,
            (select count(*)::int from pg_stat_activity
              where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null and xact_start < ?) as open`,
    [end, settleMs, end, end],
  );
  return state!.due && (state!.overdue || state!.open === 0);
}
