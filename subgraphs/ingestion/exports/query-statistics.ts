import type { EntityManager } from '@mikro-orm/postgresql';

/** The tables beneath the person columns of a query, whose row counts change in bursts (an import). */
const PERSON_TABLES = ['persons', 'person_distinct_ids'];

/**
 * Analyzes the person tables when they changed by more than a fifth (and a thousand rows) since
 * PostgreSQL last counted them. Right after an import, before autovacuum has looked, the planner
 * takes them for nearly empty and joins every event to a full scan of them: an export then takes
 * many times as long (test/bench/RESULTS.md).
 */
export async function refreshPersonStatistics(em: EntityManager): Promise<string[]> {
  const stale = await em.execute<{ relname: string }[]>(
    `select relname from pg_stat_user_tables
      where schemaname = 'ingestion' and relname in (?) and n_mod_since_analyze > greatest(1000, n_live_tup / 5)`,
    [PERSON_TABLES],
  );
  for (const { relname } of stale) await em.execute(`analyze "ingestion"."${relname}"`);
  return stale.map((row) => row.relname);
}
