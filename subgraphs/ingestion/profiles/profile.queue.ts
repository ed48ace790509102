import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../shared/db/bound-query.js';
import type { ProfileEntry } from './profile-entry.js';

/** Announced after a batch with profile changes commits: the worker starts a pass. */
export const PROFILES_QUEUED_TOPIC = 'ingestion.profiles_queued';

/** One environment's profile work at a time, across processes (the second key is its id). */
const PROFILES_LOCK = 0x70726f66;

/**
 * Takes the environment's profile lock for the caller's transaction: waiting for it (`wait`), or
 * answering at once whether it was free.
 */
export async function lockProfiles(em: EntityManager, environmentId: number, wait: boolean): Promise<boolean> {
  if (wait) {
    await em.execute('select pg_advisory_xact_lock(?, ?)', [PROFILES_LOCK, environmentId]);
    return true;
  }
  const [row] = await em.execute<{ locked: boolean }[]>('select pg_try_advisory_xact_lock(?, ?) as locked', [PROFILES_LOCK, environmentId]);
  return row?.locked === true;
}

/** Queues a batch's profile entries, in the caller's (the batch's) transaction. */
export async function enqueueProfiles(em: EntityManager, environmentId: number, entries: ProfileEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await executeBound(em, 'insert into ingestion.profile_updates (environment_id, updates, entries, created_at) values (?, ?::jsonb, ?, now())', [
    environmentId,
    JSON.stringify(entries),
    entries.length,
  ]);
}

/** Environments with queued entries. */
export async function queuedEnvironments(em: EntityManager): Promise<number[]> {
  const rows = await em.execute<{ environment_id: number }[]>('select distinct environment_id from ingestion.profile_updates');
  return rows.map((row) => row.environment_id);
}

/**
 * The oldest queued batches of an environment, in the order they were queued, as many as fit in
 * `budget` entries (at least one): a pass's memory is bounded whatever size the batches had.
 */
export async function takeProfiles(em: EntityManager, environmentId: number, budget: number): Promise<{ ids: string[]; entries: ProfileEntry[] }> {
  const queued = await em.execute<{ id: string; entries: number }[]>(
    'select id, entries from ingestion.profile_updates where environment_id = ? order by id limit 100',
    [environmentId],
  );
  const ids: string[] = [];
  let taken = 0;
  for (const { id, entries } of queued) {
    if (ids.length > 0 && taken + entries > budget) break;
    ids.push(String(id));
    taken += entries;
  }
  if (ids.length === 0) return { ids, entries: [] };
  const rows = await em.execute<{ updates: ProfileEntry[] }[]>('select updates from ingestion.profile_updates where id in (?) order by id', [ids]);
  return { ids, entries: rows.flatMap((row) => row.updates) };
}

export async function forgetProfiles(em: EntityManager, ids: string[]): Promise<void> {
  if (ids.length > 0) await em.execute('delete from ingestion.profile_updates where id in (?)', [ids]);
}
