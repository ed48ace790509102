import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../shared/logger.js';

/** Events before this go to one partition made by the migration; later ones to a partition a month. */
export const MONTHLY_PARTITIONS_FROM = Date.UTC(2000, 0, 1);

/** Serialises partition creation across processes (`create … if not exists` alone is not safe). */
const PARTITION_LOCK = 0x65767470;

/** Months whose partition is known to exist, by database: asked of the catalogue once per process. */
const known = new Set<string>();

/**
 * Makes the monthly partitions of `ingestion.events` that events at these times need, in a
 * transaction of its own before the batch's. Each is made as a table of its own, then attached:
 * `create table … partition of` would lock the whole events table (every insert and read of every
 * tenant would queue behind it), attaching takes a lock that lets them go on.
 */
export async function ensurePartitions(em: EntityManager, times: number[], log: Logger): Promise<void> {
  const database = String(em.config.get('clientUrl'));
  const months = [...new Set(times.filter((time) => time >= MONTHLY_PARTITIONS_FROM).map(monthOf))];
  const missing = months.filter((month) => !known.has(`${database} ${month}`));
  if (missing.length === 0) return;
  await em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(?)', [PARTITION_LOCK]);
    const existing = new Set(
      (await tx.execute<{ name: string }[]>(
        `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'ingestion.events'::regclass`,
      )).map((row) => row.name),
    );
    for (const month of missing.filter((candidate) => !existing.has(partitionName(candidate)))) {
      const [from, to] = bounds(month);
      const name = `ingestion.${partitionName(month)}`;
      await tx.execute(`create table ${name} (like ingestion.events including defaults)`);
      await tx.execute(`alter table ingestion.events attach partition ${name} for values from ('${from}') to ('${to}')`);
      log.info({ partition: partitionName(month) }, 'events partition created');
    }
  });
  for (const month of missing) known.add(`${database} ${month}`);
}

/** After a write found no partition for a row (the database was replaced under this process). */
export function forgetPartitions(): void {
  known.clear();
}

/** `202405` for May 2024. */
function monthOf(time: number): string {
  const date = new Date(time);
  return `${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

function partitionName(month: string): string {
  return `events_p${month}`;
}

function bounds(month: string): [string, string] {
  const year = Number(month.slice(0, 4));
  const index = Number(month.slice(4)) - 1;
  const at = (time: number) => `${new Date(time).toISOString().slice(0, 10)} 00:00:00+00`;
  return [at(Date.UTC(year, index, 1)), at(Date.UTC(year, index + 1, 1))];
}
