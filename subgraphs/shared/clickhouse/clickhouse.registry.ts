import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClickHouse } from './clickhouse.js';

/**
 * Which installation keeps its events on ClickHouse: the ClickHouse opened for a PostgreSQL
 * database, by that database's URL. An installation is one PostgreSQL database with its events
 * store; a process that serves it registers its ClickHouse on start and forgets it on stop, and
 * every subgraph, facade and job reaches it from the EntityManager it already holds. Several
 * servers of one installation in a process (tests) register theirs in turn; the latest serves.
 */
const byDatabase = new Map<string, ClickHouse[]>();

export function registerClickHouse(databaseUrl: string, clickhouse: ClickHouse): void {
  byDatabase.set(databaseUrl, [...(byDatabase.get(databaseUrl) ?? []), clickhouse]);
}

export function forgetClickHouse(databaseUrl: string, clickhouse: ClickHouse): void {
  const left = (byDatabase.get(databaseUrl) ?? []).filter((candidate) => candidate !== clickhouse);
  if (left.length > 0) byDatabase.set(databaseUrl, left);
  else byDatabase.delete(databaseUrl);
}

/** The ClickHouse of the installation of `databaseUrl`; null where events live in PostgreSQL. */
export function clickhouseFor(databaseUrl: string): ClickHouse | null {
  return byDatabase.get(databaseUrl)?.at(-1) ?? null;
}

/** The ClickHouse of the installation `em` belongs to; null where events live in PostgreSQL. */
export function clickhouseOf(em: EntityManager): ClickHouse | null {
  return clickhouseFor(String(em.config.get('clientUrl')));
}

/**
 * The latest registered ClickHouse whose tables live in `database`: for code that knows a query's
 * database only (the HogQL printer, finding which materialized columns it may read); null if none.
 */
export function clickhouseWithDatabase(database: string): ClickHouse | null {
  let found: ClickHouse | null = null;
  for (const opened of byDatabase.values()) for (const clickhouse of opened) if (clickhouse.database === database) found = clickhouse;
  return found;
}
