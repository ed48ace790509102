import { ClickHouse } from '../../subgraphs/shared/clickhouse/clickhouse.js';
import { migrateClickHouse } from '../../subgraphs/shared/clickhouse/clickhouse.migrate.js';
import { forgetClickHouse, registerClickHouse } from '../../subgraphs/shared/clickhouse/clickhouse.registry.js';
import { ConfigError, type Config } from '../../subgraphs/shared/config.js';
import { withMigrationLock } from '../../subgraphs/shared/db/migrate.js';
import type { Logger } from '../../subgraphs/shared/logger.js';
import type { SubgraphDefinition } from '../../subgraphs/shared/subgraph/define.js';

/** The events store a process opened: ClickHouse where CLICKHOUSE_URL is set; PostgreSQL needs nothing more. */
export interface OpenedEventsStore {
  clickhouse: ClickHouse | null;
  close(): Promise<void>;
}

/**
 * Opens CLICKHOUSE_URL's ClickHouse for the installation of `databaseUrl` and registers it there,
 * so that every subgraph of this process reads and writes its events on it; with `migrate`, first
 * applies the subgraphs' ClickHouse migrations (under the database's migration lock, as their
 * PostgreSQL ones). A server that cannot be reached is the setting's one line.
 */
export async function openEventsStore(config: Config, databaseUrl: string, definitions: SubgraphDefinition[], migrate: boolean, log: Logger): Promise<OpenedEventsStore> {
  if (!config.CLICKHOUSE_URL) return { clickhouse: null, close: async () => {} };
  const clickhouse = ClickHouse.open(config.CLICKHOUSE_URL, config.CLICKHOUSE_CLUSTER ?? null);
  try {
    await clickhouse.query('SELECT 1');
    if (migrate) await migrateAll(clickhouse, databaseUrl, definitions, log);
  } catch (error) {
    await clickhouse.close();
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('CLICKHOUSE_URL', `cannot use ClickHouse: ${(error as Error).message.split('\n')[0]}`);
  }
  registerClickHouse(databaseUrl, clickhouse);
  return {
    clickhouse,
    close: async () => {
      forgetClickHouse(databaseUrl, clickhouse);
      await clickhouse.close();
    },
  };
}

async function migrateAll(clickhouse: ClickHouse, databaseUrl: string, definitions: SubgraphDefinition[], log: Logger): Promise<void> {
  for (const definition of definitions.filter((candidate) => candidate.clickhouseMigrations)) {
    await withMigrationLock(databaseUrl, `clickhouse:${definition.name}`, () => migrateClickHouse(clickhouse, definition.name, definition.clickhouseMigrations!, log));
  }
}
