import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, PostgreSqlDriver, ReflectMetadataProvider, type Options } from '@mikro-orm/postgresql';
import { logger } from '../logger.js';
import type { SubgraphDefinition } from '../subgraph/define.js';

export type Orm = MikroORM;

/** The PostgreSQL schema a subgraph's tables live in: its name in snake_case. */
export function schemaOf(subgraph: Pick<SubgraphDefinition, 'name'>): string {
  return subgraph.name.replace(/-/g, '_');
}

/**
 * How long opening a connection may take by default (DATABASE_CONNECT_TIMEOUT_SECONDS): node-postgres
 * waits for ever on a server that takes the connection and never answers, and knex's pool until
 * its acquire timeout, while the request that wanted it waits too.
 */
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 10;

/**
 * MikroORM options for one subgraph: its entities, its schema, its committed migrations. A
 * connection not made within `connectTimeoutSeconds` fails the query waiting for it (a 503).
 */
export function ormOptions(subgraph: SubgraphDefinition, clientUrl: string, poolMax = 10, connectTimeoutSeconds = DEFAULT_CONNECT_TIMEOUT_SECONDS): Options {
  return {
    driver: PostgreSqlDriver,
    clientUrl,
    schema: schemaOf(subgraph),
    // Each subgraph's ORM keeps its own transaction context: work on one subgraph's EntityManager
    // inside another's transaction must not be routed into that transaction.
    contextName: subgraph.name,
    entities: subgraph.entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: false },
    schemaGenerator: { skipTables: subgraph.unmanagedTables ?? [] },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    pool: { min: 0, max: poolMax },
    debug: false,
    // knex writes its warnings (a connection lost while the database goes away) to the console;
    // here they are log records like every other line on stderr.
    driverOptions: { log: knexLog(subgraph.name), connection: { connectionTimeoutMillis: connectTimeoutSeconds * 1000 } },
    migrations: {
      tableName: 'mikro_orm_migrations',
      migrationsList: subgraph.migrations,
      pathTs: `subgraphs/${subgraph.name}/migrations`,
      path: `subgraphs/${subgraph.name}/migrations`,
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      emit: 'ts',
      fileName: (timestamp: string, name?: string) => `Migration${timestamp}${name ? `_${name}` : ''}`,
      silent: true,
    },
  };
}

function knexLog(subgraph: string): Record<'warn' | 'error' | 'deprecate' | 'debug', (message: unknown) => void> {
  const log = () => logger().child({ subgraph, component: 'knex' });
  return {
    warn: (message) => log().warn(String(message)),
    error: (message) => log().error(String(message)),
    deprecate: (message) => log().warn(String(message)),
    debug: (message) => log().debug(String(message)),
  };
}

/** Opens a subgraph's ORM (no schema change; see `migrate`). */
export async function openOrm(subgraph: SubgraphDefinition, clientUrl: string, poolMax?: number, connectTimeoutSeconds?: number): Promise<Orm> {
  return MikroORM.init(ormOptions(subgraph, clientUrl, poolMax, connectTimeoutSeconds));
}
