import type { ProfileEntry } from './profile-entry.js';

const MAX_KNOWN = 500_000;

/**
 * Distinct ids this process has seen applied, with the earliest `created_at` of their person then.
 * A distinct id never loses its person (merges move it to one at least as old), so a plain entry
 * (no property change, no merge) of a known id dated at or after that time changes nothing: it
 * need not be queued. Keyed by database, so that processes on several databases (tests) never mix.
 */
export class KnownPersons {
  /** database → environment → distinct id → created_at */
  private readonly since = new Map<string, Map<number, Map<string, number>>>();
  private size = 0;

  remember(database: string, environmentId: number, distinctId: string, createdAt: number): void {
    if (this.size >= MAX_KNOWN) {
      this.since.clear();
      this.size = 0;
    }
    let environments = this.since.get(database);
    if (!environments) this.since.set(database, (environments = new Map()));
    let ids = environments.get(environmentId);
    if (!ids) environments.set(environmentId, (ids = new Map()));
    if (!ids.has(distinctId)) this.size++;
    ids.set(distinctId, createdAt);
  }

  /** The environment's known ids, to test a batch's entries against (`isNoop`). */
  of(database: string, environmentId: number): ReadonlyMap<string, number> | undefined {
    return this.since.get(database)?.get(environmentId);
  }
}

/** Whether applying the entry would change nothing, given the environment's known ids. */
export function isNoop(known: ReadonlyMap<string, number> | undefined, entry: ProfileEntry): boolean {
  const { person, group } = entry;
  if (!known || group || !person || person.set || person.set_once || person.unset || person.merge) return false;
  const createdAt = known.get(entry.distinct_id);
  return createdAt !== undefined && createdAt <= entry.time;
}

/** The process's record, shared by the batch writer (which asks) and the profile worker (which tells). */
export const knownPersons = new KnownPersons();
