import type { EntityManager } from '@mikro-orm/postgresql';

/** Past this, a transaction still open from before the interval's end is taken for stuck and the run goes on. */
const MAX_WAIT_MS = 10 * 60_000;

/**
 * Whether an interval can be read: `settleMs` (BATCH_EXPORT_SETTLE_SECONDS) past its end, and no
 * writing transaction begun before its end still open. Events and persons are stamped with the
 * time their transaction began, so rows inside `[start, end)` may arrive until each such
 * transaction has ended. Waits at most MAX_WAIT_MS past the end.
 */
export async function isSettled(em: EntityManager, end: Date, settleMs: number, now = Date.now()): Promise<boolean> {
  if (end.getTime() + settleMs > now) return false;
  if (end.getTime() + MAX_WAIT_MS < now) return true;
  const [open] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null and xact_start < ?`,
    [end],
  );
  return open!.n === 0;
}
