import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../shared/db/bound-query.js';
import type { GroupKey } from '../groups/group.repository.js';
import type { WrittenPersons } from '../persons/person.repository.js';

/**
 * The rows one profile pass wrote, by key, for ClickHouse's mirror tables. Keys, not rows: the
 * mirror writes what PostgreSQL holds when it runs, so a record written again after an outage, or
 * after a later pass, writes the newest rows, and the versions they carry order them in ClickHouse.
 * Only merged persons travel whole, as they were when deleted: PostgreSQL keeps nothing of them.
 */
export interface ProfileMirror extends WrittenPersons {
  groups: GroupKey[];
}

/*
 * The durable record of what ClickHouse lacks is a row of the profile queue, written in the
 * pass's own transaction: a pass that committed has it, whatever happens to the process or to
 * ClickHouse next, and it goes only once ClickHouse took the rows. The queue's table (rather than
 * one of its own) because it has what the record needs already: the environment's lock, which
 * keeps the mirror of an environment apart from its passes and from its deletion, and that
 * deletion removes an environment's queued rows with the rest of its data. A sweep from a
 * watermark could not find merged persons, which leave no row behind to be swept.
 */

/** Records what a pass wrote, in the pass's transaction (nothing when it wrote nothing). */
export async function queueMirror(em: EntityManager, environmentId: number, mirror: ProfileMirror): Promise<void> {
  if (mirror.persons.length + mirror.distinct_ids.length + mirror.deleted.length + mirror.groups.length === 0) return;
  const text = JSON.stringify(mirror);
  await executeBound(em, `insert into ingestion.profile_updates (environment_id, updates, entries, bytes, mirror, created_at) values (?, '[]', 0, ?, ?::jsonb, now())`, [
    environmentId,
    Buffer.byteLength(text),
    text,
  ]);
}

/** Environments with records ClickHouse still lacks. */
export async function mirrorEnvironments(em: EntityManager): Promise<number[]> {
  const rows = await em.execute<{ environment_id: number }[]>('select distinct environment_id from ingestion.profile_updates where mirror is not null');
  return rows.map((row) => row.environment_id);
}

/** The environment's oldest records, up to `bytes` of them (at least one), merged into one. */
export async function takeMirrors(em: EntityManager, environmentId: number, bytes: number): Promise<{ ids: string[]; mirror: ProfileMirror }> {
  const queued = await em.execute<{ id: string; bytes: number }[]>(
    'select id, bytes from ingestion.profile_updates where environment_id = ? and mirror is not null order by id limit 100',
    [environmentId],
  );
  const ids: string[] = [];
  let taken = 0;
  for (const row of queued) {
    if (ids.length > 0 && taken + row.bytes > bytes) break;
    ids.push(String(row.id));
    taken += row.bytes;
  }
  const mirror: ProfileMirror = { persons: [], distinct_ids: [], deleted: [], groups: [] };
  if (ids.length === 0) return { ids, mirror };
  const rows = await em.execute<{ mirror: ProfileMirror }[]>('select mirror from ingestion.profile_updates where id in (?) order by id', [ids]);
  for (const row of rows) {
    mirror.persons.push(...row.mirror.persons);
    mirror.distinct_ids.push(...row.mirror.distinct_ids);
    mirror.deleted.push(...row.mirror.deleted);
    mirror.groups.push(...row.mirror.groups);
  }
  return { ids, mirror };
}
