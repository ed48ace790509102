import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { writeMirrorRows } from './profile-mirror.clickhouse.js';
import { mirrorRowsPage, type MirrorPosition } from './profile-mirror.repository.js';
import { lockProfiles } from './profile.queue.js';

/** What a backfill wrote into the mirror tables. */
export interface MirroredCounts {
  persons: number;
  distinct_ids: number;
  groups: number;
}

/**
 * Writes every person, distinct id and group PostgreSQL holds of the environment into ClickHouse's
 * mirror tables, `pageSize` rows at a time: what an installation had before its events moved,
 * which no profile pass records (a pass mirrors only what it changes). Each page is read and
 * written under the environment's profile lock, as a pass's record is, so that no row reaches
 * ClickHouse after the environment was deleted there. The rows carry PostgreSQL's versions: a
 * pass that changes a person meanwhile writes a greater one, which stands whichever lands last,
 * and a backfill run again writes nothing new.
 */
export async function backfillMirror(em: EntityManager, clickhouse: ClickHouse, environmentId: number, pageSize: number): Promise<MirroredCounts> {
  const counts: MirroredCounts = { persons: 0, distinct_ids: 0, groups: 0 };
  let position: MirrorPosition | null = { person: null, distinct_id: null, group: null };
  while (position) {
    const from: MirrorPosition = position;
    position = await em.fork().transactional(async (tx) => {
      await lockProfiles(tx, environmentId, true);
      const { rows, next } = await mirrorRowsPage(tx, environmentId, from, pageSize);
      await writeMirrorRows(clickhouse, rows);
      counts.persons += rows.persons.length;
      counts.distinct_ids += rows.distinct_ids.length;
      counts.groups += rows.groups.length;
      return next;
    });
  }
  return counts;
}
