import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../shared/db/bound-query.js';
import type { AwaitedInsert } from './awaiting-insert.queue.js';
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

/**
 * Queues a batch's profile entries, in the caller's (the batch's) transaction; where its events
 * still have to go to ClickHouse, as awaiting that insert. An attempt of the batch whose changes
 * await the same insert queued them already: they are not queued twice.
 */
export async function enqueueProfiles(em: EntityManager, environmentId: number, entries: ProfileEntry[], awaiting: AwaitedInsert | null): Promise<void> {
  if (entries.length === 0) return;
  const updates = JSON.stringify(entries);
  await executeBound(
    em,
    `insert into ingestion.profile_updates (environment_id, updates, entries, bytes, insert_token, insert_events, created_at) values (?, ?::jsonb, ?, ?, ?, ?::jsonb, now())
     on conflict (environment_id, insert_token) where insert_token is not null do nothing`,
    [environmentId, updates, entries.length, Buffer.byteLength(updates), awaiting?.token ?? null, awaiting ? JSON.stringify(awaiting.events) : null],
  );
}

/** A row that failed this many passes alone is parked: passes leave it out, and the others go on. */
export const PARK_AFTER_ATTEMPTS = 3;

/** Environments with entries to apply (parked ones, rows waiting for ClickHouse's mirror, and rows awaiting an insert, aside). */
export async function queuedEnvironments(em: EntityManager): Promise<number[]> {
  const rows = await em.execute<{ environment_id: number }[]>(
    'select distinct environment_id from ingestion.profile_updates where attempts < ? and mirror is null and insert_token is null',
    [PARK_AFTER_ATTEMPTS],
  );
  return rows.map((row) => row.environment_id);
}

/** How much one pass takes at most (at least one row): its memory is bounded whatever the batches held. */
export interface PassBudget {
  entries: number;
  bytes: number;
}

/**
 * The oldest queued batches of an environment, in the order they were queued, as many as fit in
 * the budget. A row that was in a failed pass is taken alone, so that the one at fault is found.
 * The batches stop short of one still awaiting its ClickHouse insert: a later batch's changes
 * never pass an earlier one's.
 */
export async function takeProfiles(em: EntityManager, environmentId: number, budget: PassBudget): Promise<{ ids: string[]; entries: ProfileEntry[] }> {
  const queued = await em.execute<{ id: string; entries: number; bytes: number; attempts: number; awaiting: boolean }[]>(
    'select id, entries, bytes, attempts, insert_token is not null as awaiting from ingestion.profile_updates where environment_id = ? and attempts < ? and mirror is null order by id limit 100',
    [environmentId, PARK_AFTER_ATTEMPTS],
  );
  const ids: string[] = [];
  const taken = { entries: 0, bytes: 0 };
  for (const { id, entries, bytes, attempts, awaiting } of queued) {
    if (awaiting) break;
    if (ids.length > 0 && (attempts > 0 || taken.entries + entries > budget.entries || taken.bytes + bytes > budget.bytes)) break;
    ids.push(String(id));
    taken.entries += entries;
    taken.bytes += bytes;
    if (attempts > 0) break;
  }
  if (ids.length === 0) return { ids, entries: [] };
  const rows = await em.execute<{ updates: ProfileEntry[] }[]>('select updates from ingestion.profile_updates where id in (?) order by id', [ids]);
  return { ids, entries: rows.flatMap((row) => row.updates) };
}

export async function forgetProfiles(em: EntityManager, ids: string[]): Promise<void> {
  if (ids.length > 0) await em.execute('delete from ingestion.profile_updates where id in (?)', [ids]);
}

/** Counts a failed pass against its rows (in a transaction of its own), answering the ids now parked. */
export async function countFailure(em: EntityManager, ids: string[], reason: string): Promise<string[]> {
  const rows = await executeBound<{ id: string; attempts: number }>(
    em,
    'update ingestion.profile_updates set attempts = attempts + 1, last_error = left(?, 2000) where id in (select jsonb_array_elements_text(?::jsonb)::bigint) returning id, attempts',
    [reason, JSON.stringify(ids)],
  );
  return rows.filter((row) => row.attempts >= PARK_AFTER_ATTEMPTS).map((row) => String(row.id));
}
