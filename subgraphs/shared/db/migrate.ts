import pg from 'pg';
import type { Logger } from '../logger.js';
import type { SubgraphDefinition } from '../subgraph/define.js';
import type { Orm } from './orm.js';

/**
 * Applies a subgraph's pending migrations, logging each one as it starts and ends so that a long
 * migration shows where it is. An advisory lock keeps two processes from migrating at once.
 */
export async function migrate(subgraph: SubgraphDefinition, orm: Orm, log: Logger): Promise<string[]> {
  const migrator = orm.getMigrator();
  return withMigrationLock(orm.config.get('clientUrl')!, subgraph.name, async () => {
    const pending = await migrator.getPendingMigrations();
    if (pending.length === 0) return [];
    log.info({ subgraph: subgraph.name, pending: pending.length }, 'applying migrations');
    const applied: string[] = [];
    for (const [index, migration] of pending.entries()) {
      const started = Date.now();
      log.info({ subgraph: subgraph.name, migration: migration.name, step: `${index + 1}/${pending.length}` }, 'migration started');
      await migrator.up({ migrations: [migration.name] });
      applied.push(migration.name);
      log.info({ subgraph: subgraph.name, migration: migration.name, ms: Date.now() - started }, 'migration done');
    }
    return applied;
  });
}

/**
 * Runs `work` holding the advisory lock of `name`'s migrations in the database of `databaseUrl`,
 * so that two processes starting at once migrate one after the other.
 */
export async function withMigrationLock<T>(databaseUrl: string, name: string, work: () => Promise<T>): Promise<T> {
  // The lock is held on a connection of its own: pooled connections would lock and unlock apart.
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [migrationLockId(name)]);
    return await work();
  } finally {
    await lock.end();
  }
}

/** A stable 31-bit number per subgraph for `pg_advisory_lock`. */
export function migrationLockId(name: string): number {
  let hash = 7;
  for (const char of `migrate:${name}`) hash = (hash * 31 + char.charCodeAt(0)) & 0x7fffffff;
  return hash;
}
