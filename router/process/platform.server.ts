import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { createRest, type RestLayer, type RestOptions } from '../../rest-compat/rest.js';
import { routerExecutor, routerSubscriber, useInProcessAnswers, type DirectRouterCall } from '../../rest-compat/executors.js';
import { connectRedis, startSubgraphs } from './platform.js';
import { ActorSigner } from '../../subgraphs/shared/auth/actor.js';
import type { Config } from '../../subgraphs/shared/config.js';
import type { Logger } from '../../subgraphs/shared/logger.js';
import type { LocalSubgraph } from '../../subgraphs/shared/local-subgraph.ports.js';
import type { PubSub } from '../../subgraphs/shared/pubsub/pubsub.js';
import type { HealthCheck } from '../../subgraphs/shared/health.js';
import { Authenticator } from '../auth.js';
import { createGateway, loadSupergraph, rootFieldAuthorizer, type Gateway } from '../gateway.js';
import { contractResult } from '../errors.js';
import type { DirectOperation } from '../post.fast-path.js';
import { listenIngest } from '../ingest-listener.js';
import { listen, type IngestHandler, type Listener } from '../listener.js';
import { listenMetrics } from '../../subgraphs/shared/metrics.listener.js';
import { holdStopSignals, type HeldStopSignals } from '../../subgraphs/shared/stop-signals.js';
import { closeRateLimiter } from '../../subgraphs/shared/rate-limit.js';
import { configuredKeyThrottle } from '../throttle.js';
import { remoteHealth, subgraphUrls } from '../remote-subgraphs.js';
import { preparedDatabase } from './cluster.primary.js';
import { listeningEndedEverywhere } from './cluster.listening.js';
import { announce, tellPrimary } from './cluster.news.js';
import type { PortHold } from '../listener.ports.js';
import { projectFile } from '../../subgraphs/shared/project-files.js';

interface Subgraphs {
  urls: Record<string, string>;
  /** Those running in this process, called without HTTP. */
  local?: Record<string, LocalSubgraph>;
  /** Their pub/sub (none for subgraphs run elsewhere). */
  pubsub?: PubSub;
  health: HealthCheck;
  stop(): Promise<void>;
  embedded: boolean;
}

/**
 * Serves the platform from this process (the only one, or a cluster worker): the subgraphs (or,
 * with SUBGRAPH_URLS, routes to those that run elsewhere), the router, the REST layer and the
 * listeners, on the public port `port` held during the start; stops gracefully on SIGTERM or SIGINT.
 */
export async function runPlatform(settings: Config, log: Logger, started: number, port: PortHold): Promise<void> {
  // A signal while the subgraphs start (a primary stopping its workers as they start) is answered once all can stop.
  const signals = holdStopSignals(settings.SHUTDOWN_TIMEOUT_SECONDS * 1000);
  const subgraphs = settings.SUBGRAPH_URLS ? await remoteSubgraphs(settings, log) : await localSubgraphs(settings, log);
  try {
    await serve(settings, log, subgraphs, started, signals, port);
  } catch (error) {
    // Whatever started must stop, or the embedded database and DATA_DIR's lock outlive the failure.
    await subgraphs.stop();
    throw error;
  }
}

async function serve(settings: Config, log: Logger, subgraphs: Subgraphs, started: number, signals: HeldStopSignals, port: PortHold): Promise<void> {
  const signer = new ActorSigner(settings.SECRET_KEY);
  const authenticator = new Authenticator(signer, { accounts: subgraphs.urls.accounts!, projects: subgraphs.urls.projects! }, { local: subgraphs.local });
  if (subgraphs.pubsub) await authenticator.follow(subgraphs.pubsub);
  const gateway = createGateway({ supergraph: loadSupergraph(subgraphs.urls), authenticator, signer, log, local: subgraphs.local, plugins: [useInProcessAnswers()] });
  const throttle = await configuredKeyThrottle(authenticator, settings);
  const rest = restOverRouter({ gateway, authenticator, throttle, log, maxIngestBodyBytes: settings.MAX_INGEST_BODY_BYTES });
  const listener = await listen({
    host: settings.HOST,
    port: settings.PORT,
    held: port,
    gateway,
    authenticator,
    rest: rest.handle,
    ingest: rest.ingest,
    maxIngestBodyBytes: settings.MAX_INGEST_BODY_BYTES,
    health: subgraphs.health,
    maxBodyBytes: settings.MAX_BODY_BYTES,
    maxLargeBodyBytes: settings.MAX_LARGE_BODY_BYTES,
    takesLargeBody: rest.takesLargeBody,
    allowedMethods: rest.allowedMethods,
    throttle,
    listeningEnded: cluster.isWorker ? listeningEndedEverywhere('PORT') : undefined,
    log,
  });
  const ingestListener = await listenIngestPort(settings, rest.ingest, subgraphs, log, listener);
  // A cluster's primary serves the metrics of all its workers, and says where the platform listens.
  const metricsListener = settings.METRICS_PORT === undefined || cluster.isWorker ? undefined : await listenMetrics({ host: settings.HOST, port: settings.METRICS_PORT, log });
  log.info({ url: listener.url, ingest_url: ingestListener?.url ?? listener.url, ms: Date.now() - started, embedded_database: subgraphs.embedded }, cluster.isWorker ? 'worker listening' : 'platform listening');
  if (cluster.isWorker) tellPrimary({ platform: 'ready', url: listener.url, ingestUrl: ingestListener?.url });
  else announce({ url: listener.url, ingestUrl: ingestListener?.url, metricsUrl: metricsListener?.url });

  let stopping = false;
  /**
   * SIGTERM or SIGINT (under `npm start`, npm's exit too): no new connections; websockets closed
   * with 1001 (going away); requests in progress, ingestion batches included, and those that come
   * on connections still open finish within SHUTDOWN_TIMEOUT_SECONDS, each answer with
   * `Connection: close` (router/drain.ts); then the workers stop (a batch export run is given back for another
   * process), the subgraphs close, and the embedded PostgreSQL shuts down.
   */
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const graceMs = settings.SHUTDOWN_TIMEOUT_SECONDS * 1000;
    log.info({ signal, grace_ms: graceMs }, 'shutting down: requests in progress may finish');
    await Promise.allSettled([ingestListener?.close(graceMs), listener.close(graceMs), metricsListener?.close()]);
    await Promise.resolve(gateway.runtime.dispose()).catch(() => undefined);
    await subgraphs.stop();
    await closeRateLimiter();
    // The platform's `stopped` is its last line: a worker's is its own.
    log.info({ signal }, cluster.isWorker ? 'worker stopped' : 'stopped');
    process.exit(0);
  };
  signals.handle(
    (signal) => void shutdown(signal),
    (error) => {
      log.fatal({ err: error }, 'uncaught exception');
      void subgraphs.stop().finally(() => process.exit(1));
    },
  );
}

/**
 * The REST layer over the router of this process: every operation through `gateway.fetch`, and a
 * key refused by the router ahead of a body the layer cannot use.
 */
export function restOverRouter(parts: {
  gateway: Gateway;
  authenticator: Authenticator;
  throttle: RestOptions['throttle'];
  log: Logger;
  maxIngestBodyBytes: number;
}): RestLayer {
  const { gateway } = parts;
  return createRest({
    apiSdl: readFileSync(projectFile('schema/api.graphql'), 'utf8'),
    execute: routerExecutor(async (request) => gateway.runtime.fetch(request), 'http://router/graphql', { direct: restFastPath(gateway.direct) }),
    subscribe: routerSubscriber(async (request) => gateway.runtime.fetch(request), 'http://router/graphql'),
    log: parts.log,
    maxIngestBodyBytes: parts.maxIngestBodyBytes,
    throttle: parts.throttle,
    authorize: rootFieldAuthorizer(parts.authenticator),
  });
}

/**
 * The REST layer's operations, run without the router's HTTP pipeline (`directOperation` in
 * post.fast-path.ts): they come from within (http://router/, not counted in the GraphQL metrics)
 * already parsed, and their result goes back as an object with the errors `useContractErrors`
 * makes (see rest-compat/executors.ts). The REST reads of the settings bench answer more requests
 * a second this way than through Yoga (measured in test/bench/RESULTS.md).
 */
export function restFastPath(run: DirectOperation): DirectRouterCall {
  return async (operation, request, headers) => {
    const ran = await run({ params: operation, headers, request });
    if (!ran) return undefined;
    const { result } = ran;
    return result.errors?.length ? { ...result, errors: contractResult(result, operation.query).errors as never } : result;
  };
}

/** With INGEST_PORT set, `/batch/` gets a listener of its own too (the main one keeps serving it). */
async function listenIngestPort(settings: Config, ingest: IngestHandler, subgraphs: Subgraphs, log: Logger, main: Listener): Promise<Listener | undefined> {
  if (settings.INGEST_PORT === undefined) return undefined;
  try {
    const listeningEnded = cluster.isWorker ? listeningEndedEverywhere('INGEST_PORT') : undefined;
    return await listenIngest({ host: settings.HOST, port: settings.INGEST_PORT, ingest, health: subgraphs.health, maxIngestBodyBytes: settings.MAX_INGEST_BODY_BYTES, listeningEnded, log });
  } catch (error) {
    await main.close();
    throw error;
  }
}

/** The subgraphs in this process; in a cluster worker, on the database its primary prepared. */
async function localSubgraphs(settings: Config, log: Logger): Promise<Subgraphs> {
  const prepared = cluster.isWorker ? await preparedDatabase() : undefined;
  const running = await startSubgraphs(settings, log, { prepared: prepared?.database });
  return { urls: running.urls, local: running.local, pubsub: running.pubsub, health: running.health, stop: running.stop, embedded: prepared?.embedded ?? Boolean(running.database.embedded) };
}

/**
 * Subgraphs run elsewhere (SUBGRAPH_URLS). With REDIS_URL, which such a deployment has, the router
 * follows their pub/sub for keys revoked or changed.
 */
async function remoteSubgraphs(settings: Config, log: Logger): Promise<Subgraphs> {
  const urls = subgraphUrls(settings.SUBGRAPH_URLS!);
  const pubsub = settings.REDIS_URL ? await connectRedis(settings.REDIS_URL, settings.REDIS_CHANNEL_PREFIX, log) : undefined;
  return { urls, pubsub, health: () => remoteHealth(urls, pubsub), stop: async () => void (await pubsub?.close()), embedded: false };
}
