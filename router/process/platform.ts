import type { EntityManager } from '@mikro-orm/postgresql';
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { subgraphs as allSubgraphs } from '../../subgraphs/index.js';
import { projectsFacade } from '../../subgraphs/projects/facade.js';
import { bootstrap, type BootstrapResult } from './bootstrap.js';
import { accountsFacade } from '../../subgraphs/accounts/facade.js';
import { startDeletionWorker, type DeletionWorker } from './deletion.worker.js';
import { openEventsStore, type OpenedEventsStore } from './events-store.js';
import { ActorSigner } from '../../subgraphs/shared/auth/actor.js';
import { ConfigError, type Config } from '../../subgraphs/shared/config.js';
import { openDatabase, type Database } from '../../subgraphs/shared/db/database.js';
import { migrate } from '../../subgraphs/shared/db/migrate.js';
import { openOrm, type Orm } from '../../subgraphs/shared/db/orm.js';
import { ownHealth, partUp, type HealthCheck } from '../../subgraphs/shared/health.js';
import type { Logger } from '../../subgraphs/shared/logger.js';
import { SecretBox } from '../../subgraphs/shared/secrets.js';
import { watchPool, type PoolState } from '../../subgraphs/shared/metrics.js';
import { closeRateLimiter } from '../../subgraphs/shared/rate-limit.js';
import { ClusterPubSub } from '../../subgraphs/shared/cluster/cluster.pubsub.js';
import { MemoryPubSub } from '../../subgraphs/shared/pubsub/memory.pubsub.js';
import { SequenceFloors } from '../../subgraphs/shared/pubsub/sequence-floors.js';
import type { PubSub } from '../../subgraphs/shared/pubsub/pubsub.js';
import { RedisPubSub } from '../../subgraphs/shared/pubsub/redis.pubsub.js';
import type { SubgraphDefinition, Worker } from '../../subgraphs/shared/subgraph/define.js';
import type { LocalSubgraph } from '../../subgraphs/shared/local-subgraph.ports.js';
import { serveSubgraph, type ServedSubgraph } from '../../subgraphs/shared/subgraph/serve.js';

export interface RunningSubgraphs {
  /** subgraph name → `http://127.0.0.1:<port>/graphql` */
  urls: Record<string, string>;
  /** subgraph name → the subgraph, for a router in this process. */
  local: Record<string, LocalSubgraph>;
  /** Set where the projects subgraph runs. */
  deletions?: DeletionWorker;
  /** Each served subgraph's background worker, by subgraph name. */
  workers: Record<string, Worker>;
  database: Database;
  pubsub: PubSub;
  /** Serving while the database answers and events can flow. */
  health: HealthCheck;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Only these subgraphs (all when absent). */
  only?: string[];
  /** Port for a single subgraph; 0 (a free port) otherwise. */
  port?: number;
  /**
   * A database that a cluster's primary opened, migrated and bootstrapped (see
   * {@link prepareDatabase}): used as it is, and left running on stop, for the primary stops it.
   */
  prepared?: Database;
}

/**
 * What a cluster's primary does once, before its workers start subgraphs on the same database:
 * opens it (embedded unless DATABASE_URL is set), applies every subgraph's migrations and, on an
 * empty embedded database, bootstraps the default account. The caller stops the embedded server.
 */
export async function prepareDatabase(config: Config, log: Logger): Promise<Database> {
  const database = await openDatabase(config, log);
  const orms = new Map<SubgraphDefinition, Orm>();
  try {
    await openMigrated(allSubgraphs, database.url, log, orms, 1, config.DATABASE_CONNECT_TIMEOUT_SECONDS);
    await (await openEventsStore(config, database.url, allSubgraphs, true, log)).close();
    await checkSecretKey(anyOf(orms).em.fork(), config.SECRET_KEY);
    if (database.embedded) {
      await bootstrapFirstStart(config, orms, log);
      writeFileSync(embeddedUrlFile(config), database.url, { mode: 0o600 });
    }
    return database;
  } catch (error) {
    await database.embedded?.stop();
    throw error;
  } finally {
    await Promise.allSettled([...orms.values()].map((orm) => orm.close()));
  }
}

/**
 * Refuses a SECRET_KEY that does not open the secrets the database holds: they were sealed under
 * another key (a DATA_DIR's generated key lost or replaced, another deployment's key, a command
 * run without the server's key), and every read of a token would fail with a 500.
 */
export async function checkSecretKey(em: EntityManager, secretKey: string): Promise<void> {
  if (await projectsFacade.opensSealedSecrets(em, new SecretBox(secretKey))) return;
  throw new ConfigError('SECRET_KEY', 'does not open the secrets this database holds (they were sealed under another key)');
}

/** One of the opened ORMs: every subgraph's reaches the same database (for what needs just a connection). */
function anyOf(orms: Map<SubgraphDefinition, Orm>): Orm {
  const [orm] = orms.values();
  if (!orm) throw new Error('no subgraph was opened');
  return orm;
}

/** Forgets the embedded database's URL file of {@link prepareDatabase} (the server is stopping). */
export function forgetEmbeddedUrl(config: Config): void {
  rmSync(embeddedUrlFile(config), { force: true });
}

/** Opens each subgraph's ORM into `orms` and applies its migrations (under an advisory lock each). */
async function openMigrated(definitions: SubgraphDefinition[], url: string, log: Logger, orms: Map<SubgraphDefinition, Orm>, poolMax: number | undefined, connectTimeoutSeconds: number): Promise<void> {
  for (const definition of definitions) {
    const orm = await openOrm(definition, url, poolMax, connectTimeoutSeconds);
    orms.set(definition, orm);
    await migrate(definition, orm, log);
  }
}

/**
 * Starts subgraphs in this process: the database (embedded unless DATABASE_URL is set), the
 * pub/sub (Redis when REDIS_URL is set; else the cluster primary's in a cluster worker, or this
 * process's), migrations, the embedded first-start bootstrap, and one HTTP + graphql-ws listener
 * per subgraph on 127.0.0.1 (this process's own, also in a cluster worker).
 */
export async function startSubgraphs(config: Config, log: Logger, options: StartOptions = {}): Promise<RunningSubgraphs> {
  const definitions = allSubgraphs.filter((subgraph) => !options.only || options.only.includes(subgraph.name));
  const database = options.prepared ?? (await openDatabase(config, log));
  const owned = !options.prepared;
  const orms = new Map<SubgraphDefinition, Orm>();
  const served: ServedSubgraph[] = [];
  const cleanupOrms: Orm[] = [];
  let pubsub: PubSub | undefined;
  let events: OpenedEventsStore | undefined;
  let deletions: DeletionWorker | undefined;
  const workers: Record<string, Worker> = {};
  const unwatch: (() => void)[] = [];
  const stop = async () => {
    for (const forget of unwatch) forget();
    await deletions?.stop();
    await Promise.allSettled(Object.values(workers).map((worker) => worker.stop()));
    await Promise.allSettled(cleanupOrms.map((orm) => orm.close()));
    await Promise.allSettled(served.map((subgraph) => subgraph.close()));
    await Promise.allSettled([...orms.values()].map((orm) => orm.close()));
    await pubsub?.close();
    await events?.close();
    await closeRateLimiter();
    if (!owned) return;
    if (database.embedded) forgetEmbeddedUrl(config);
    await database.embedded?.stop();
  };
  try {
    if (owned && database.embedded) writeFileSync(embeddedUrlFile(config), database.url, { mode: 0o600 });
    pubsub = config.REDIS_URL ? await connectRedis(config.REDIS_URL, config.REDIS_CHANNEL_PREFIX, log, database.url) : cluster.isWorker ? new ClusterPubSub(log) : new MemoryPubSub(new SequenceFloors(database.url));
    if (owned) await openMigrated(definitions, database.url, log, orms, undefined, config.DATABASE_CONNECT_TIMEOUT_SECONDS);
    else for (const definition of definitions) orms.set(definition, await openOrm(definition, database.url, undefined, config.DATABASE_CONNECT_TIMEOUT_SECONDS));
    events = await openEventsStore(config, database.url, definitions, owned, log);
    // A cluster's primary checked it where it prepared the database.
    if (owned) await checkSecretKey(anyOf(orms).em.fork(), config.SECRET_KEY);
    for (const [definition, orm] of orms) unwatch.push(watchPool(definition.name, orm.em.getConnection().getKnex().client.pool as PoolState));
    if (owned && database.embedded) await bootstrapFirstStart(config, orms, log);
    deletions = await startDeletions(orms, database.url, cleanupOrms, log);
    const signer = new ActorSigner(config.SECRET_KEY);
    for (const [definition, orm] of orms) {
      const runtime = { definition, orm, pubsub, signer, log: log.child({ subgraph: definition.name }) };
      await projectsFacade.followProjectChanges(orm.em, pubsub);
      served.push(await serveSubgraph(runtime, '127.0.0.1', options.port ?? 0));
      if (definition.startWorker) workers[definition.name] = definition.startWorker({ orm, pubsub, log: runtime.log, config });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const flow = pubsub;
  const clickhouse = events!.clickhouse;
  return {
    deletions,
    workers,
    urls: Object.fromEntries(served.map((subgraph) => [subgraph.name, subgraph.url])),
    local: Object.fromEntries(served.map((subgraph) => [subgraph.name, subgraph.local])),
    database,
    pubsub,
    health: () =>
      ownHealth({
        database: () => partUp(() => anyOf(orms).em.getConnection().execute('select 1')),
        pubsub: async () => flow.healthy(),
        ...(clickhouse ? { clickhouse: () => partUp(() => clickhouse.query('SELECT 1')) } : {}),
      }),
    stop,
  };
}

/**
 * Where the projects subgraph runs, so does its deletion worker; it reaches every subgraph that
 * keeps environment data, through that subgraph's ORM (opened for the purpose when the subgraph
 * runs in another process).
 */
async function startDeletions(orms: Map<SubgraphDefinition, Orm>, url: string, opened: Orm[], log: Logger): Promise<DeletionWorker | undefined> {
  const projectsOrm = [...orms].find(([definition]) => definition.name === 'projects')?.[1];
  if (!projectsOrm) return undefined;
  const cleaners = [];
  for (const definition of allSubgraphs.filter((candidate) => candidate.deleteEnvironmentData)) {
    let orm = orms.get(definition);
    if (!orm) {
      orm = await openOrm(definition, url, 1);
      opened.push(orm);
    }
    cleaners.push({ definition, orm });
  }
  return startDeletionWorker(projectsOrm, cleaners, log);
}

/** The Redis pub/sub of REDIS_URL; one that cannot be reached is the setting's one-line error. */
export async function connectRedis(url: string, prefix: string, log: Logger, databaseUrl?: string): Promise<PubSub> {
  try {
    // Its sequences' floors in the database, so that a Redis that lost them never numbers backwards.
    return await RedisPubSub.connect(url, prefix, log, databaseUrl ? new SequenceFloors(databaseUrl) : undefined);
  } catch (error) {
    throw new ConfigError('REDIS_URL', (error as Error).message);
  }
}

/** Where a running embedded platform leaves its database URL, for `npm run bootstrap` (mode 600). */
export function embeddedUrlFile(config: Config): string {
  return resolve(config.DATA_DIR, 'embedded-database-url');
}

/**
 * On the first start of an empty embedded database: a default account, written to
 * `$DATA_DIR/bootstrap.json` (mode 600) so that the user can call the API at once.
 */
async function bootstrapFirstStart(config: Config, orms: Map<SubgraphDefinition, Orm>, log: Logger): Promise<void> {
  const accountsOrm = [...orms].find(([definition]) => definition.name === 'accounts')?.[1];
  const projectsOrm = [...orms].find(([definition]) => definition.name === 'projects')?.[1];
  if (!accountsOrm || !projectsOrm) return;
  const file = resolve(config.DATA_DIR, 'bootstrap.json');
  if ((await accountsFacade.countUsers(accountsOrm.em.fork())) > 0) return;
  const password = randomBytes(18).toString('base64url');
  const result: BootstrapResult = await bootstrap(
    { accounts: accountsOrm.em.fork(), projects: projectsOrm.em.fork() },
    { email: 'admin@localhost', password },
  );
  if (existsSync(file)) rmSync(file);
  writeFileSync(file, `${JSON.stringify(result)}\n`, { mode: 0o600 });
  log.info({ file, email: 'admin@localhost' }, 'bootstrapped a default account');
  process.stdout.write(`Default account created; its keys are in ${file}\n`);
}
