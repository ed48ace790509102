import type { EntityManager } from '@mikro-orm/postgresql';
import { subgraphNamed, subgraphs } from '../../../subgraphs/index.js';
import type { ClickHouse } from '../../../subgraphs/shared/clickhouse/clickhouse.js';
import type { Config } from '../../../subgraphs/shared/config.js';
import { openOrm } from '../../../subgraphs/shared/db/orm.js';
import type { Logger } from '../../../subgraphs/shared/logger.js';
import { openEventsStore } from '../events-store.js';
import { openInstallationDatabase } from './installation-database.js';

/**
 * Runs an events command's `work` on the installation's two stores: one subgraph's PostgreSQL
 * tables as the platform finds them (ingestion's events for a copy, endpoints' saved queries for
 * the column suggestions), and CLICKHOUSE_URL's ClickHouse with its migrations applied (under the
 * database's migration lock, as start-up applies them), so that its tables exist. Everything
 * opened is closed after.
 */
export async function withEventStores<T>(config: Config, log: Logger, subgraph: string, work: (em: EntityManager, clickhouse: ClickHouse) => Promise<T>): Promise<T> {
  const database = await openInstallationDatabase(config, log);
  try {
    const events = await openEventsStore(config, database.url, subgraphs, true, log);
    try {
      const orm = await openOrm(subgraphNamed(subgraph), database.url, 2, config.DATABASE_CONNECT_TIMEOUT_SECONDS);
      try {
        return await work(orm.em.fork(), events.clickhouse!);
      } finally {
        await orm.close();
      }
    } finally {
      await events.close();
    }
  } finally {
    await database.embedded?.stop();
  }
}
