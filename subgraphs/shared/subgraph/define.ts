import type { MigrationObject } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLResolveInfo } from 'graphql';
import type { NonEmptyArray } from 'type-graphql';
import type { ClickHouseMigration } from '../clickhouse/clickhouse.migrate.js';
import type { Config } from '../config.js';
import type { SubgraphContext } from './context.js';
import type { Logger } from '../logger.js';
import type { PubSub } from '../pubsub/pubsub.js';

/** Resolves a `@key` entity of this subgraph from its key fields (Apollo's `__resolveReference`). */
export type ReferenceResolver = (reference: Record<string, unknown>, context: SubgraphContext, info: GraphQLResolveInfo) => unknown;

/**
 * Everything that makes a subgraph: its name (kebab-case, the same in `supergraph.yaml`,
 * `schema/subgraphs/` and its PostgreSQL schema in snake_case), its entities and committed
 * migrations, its resolvers, and reference resolvers for the entities it owns.
 */
export interface SubgraphDefinition {
  name: string;
  entities: Function[];
  migrations: MigrationObject[];
  /**
   * Tables of the subgraph's schema that its migrations make by hand and no entity describes
   * (partitioned tables written with set-based SQL): the schema diff leaves them alone.
   */
  unmanagedTables?: RegExp[];
  /** The subgraph's ClickHouse schema, where CLICKHOUSE_URL keeps the events there (run at start-up after its migrations). */
  clickhouseMigrations?: ClickHouseMigration[];
  resolvers: NonEmptyArray<Function>;
  /** Types reachable only through `_entities` (stubs of other subgraphs' entities). */
  orphanedTypes?: Function[];
  references?: Record<string, ReferenceResolver>;
  /**
   * Removes this subgraph's data of deleted environments (called by the durable deletion job of
   * the projects subgraph, with this subgraph's own EntityManager); must be safe to repeat.
   */
  deleteEnvironmentData?: (em: EntityManager, environmentIds: number[]) => Promise<void>;
  /** Started once the subgraph serves, stopped before it closes; jobs live in its tables. */
  startWorker?: (runtime: WorkerRuntime) => Worker;
}

/** Background work a subgraph runs where it is served (delivering its outbox, say). */
export interface Worker {
  /** Does what is due now (tests, after a commit they wait on). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export interface WorkerRuntime {
  // MikroORM itself, not db/orm.ts's alias: the database kit builds on these definitions.
  orm: MikroORM;
  pubsub: PubSub;
  log: Logger;
  config: Config;
}

export function defineSubgraph(definition: SubgraphDefinition): SubgraphDefinition {
  return definition;
}
