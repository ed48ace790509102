import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createRest } from '../rest-compat/rest.js';
import { routerExecutor, routerSubscriber } from '../rest-compat/executors.js';
import { readSupergraphConfig } from '../schema/compose.js';
import { startSubgraphs } from '../subgraphs/index.js';
import { ActorSigner } from '../subgraphs/shared/auth/actor.js';
import { ConfigError, config, type Config } from '../subgraphs/shared/config.js';
import { createLogger, type Logger } from '../subgraphs/shared/logger.js';
import type { LocalSubgraph } from '../subgraphs/shared/subgraph/serve.js';
import { Authenticator } from './auth.js';
import { createGateway, loadSupergraph } from './gateway.js';
import { listenIngest } from './ingest-listener.js';
import { listen, type IngestHandler, type Listener } from './listener.js';
import { listenMetrics } from '../subgraphs/shared/metrics.listener.js';
import { closeRateLimiter, limitsOf, rateLimiter } from '../subgraphs/shared/rate-limit.js';
import { personalKeyThrottle } from './throttle.js';

interface Subgraphs {
  urls: Record<string, string>;
  /** Those running in this process, called without HTTP. */
  local?: Record<string, LocalSubgraph>;
  healthy(): Promise<boolean>;
  stop(): Promise<void>;
  embedded: boolean;
}

/**
 * `npm start`: the whole platform in one process. The subgraphs listen on free loopback ports
 * (the router calls them in process, but for subscriptions), the router composes them from the
 * committed supergraph, the REST layer runs in process on the
 * router, and one public listener serves it all. With SUBGRAPH_URLS set, the router runs alone
 * and routes to subgraphs that run elsewhere.
 */
async function main(): Promise<void> {
  const settings = config();
  const log = createLogger(settings.LOG_LEVEL, 'router');
  const started = Date.now();
  const subgraphs = settings.SUBGRAPH_URLS ? remoteSubgraphs(settings.SUBGRAPH_URLS) : await localSubgraphs(settings, log);
  try {
    await serve(settings, log, subgraphs, started);
  } catch (error) {
    // Whatever started must stop, or the embedded database and DATA_DIR's lock outlive the failure.
    await subgraphs.stop();
    throw error;
  }
}

async function serve(settings: Config, log: Logger, subgraphs: Subgraphs, started: number): Promise<void> {
  const signer = new ActorSigner(settings.SECRET_KEY);
  const authenticator = new Authenticator(signer, { accounts: subgraphs.urls.accounts!, projects: subgraphs.urls.projects! });
  const gateway = createGateway({ supergraph: loadSupergraph(subgraphs.urls), authenticator, signer, log, local: subgraphs.local });
  const rest = createRest({
    apiSdl: readFileSync(resolve(process.cwd(), 'schema/api.graphql'), 'utf8'),
    execute: routerExecutor(async (request) => gateway.fetch(request), 'http://router/graphql', true),
    subscribe: routerSubscriber(async (request) => gateway.fetch(request), 'http://router/graphql'),
    log,
    maxIngestBodyBytes: settings.MAX_INGEST_BODY_BYTES,
  });
  const listener = await listen({
    host: settings.HOST,
    port: settings.PORT,
    gateway,
    authenticator,
    rest: rest.handle,
    ingest: rest.ingest,
    maxIngestBodyBytes: settings.MAX_INGEST_BODY_BYTES,
    healthy: subgraphs.healthy,
    maxBodyBytes: settings.MAX_BODY_BYTES,
    maxLargeBodyBytes: settings.MAX_LARGE_BODY_BYTES,
    takesLargeBody: rest.takesLargeBody,
    throttle: personalKeyThrottle(authenticator, await rateLimiter(settings), limitsOf(settings.RATE_LIMIT_PERSONAL_KEY_PER_MINUTE, settings.RATE_LIMIT_PERSONAL_KEY_PER_HOUR)),
    log,
  });
  const ingestListener = await listenIngestPort(settings, rest.ingest, subgraphs, log, listener);
  const metricsListener = settings.METRICS_PORT === undefined ? undefined : await listenMetrics({ host: settings.HOST, port: settings.METRICS_PORT, log });
  if (metricsListener) process.stdout.write(`Metrics (/metrics) listening on ${metricsListener.url}\n`);
  log.info({ url: listener.url, ingest_url: ingestListener?.url ?? listener.url, ms: Date.now() - started, embedded_database: subgraphs.embedded }, 'platform listening');
  if (ingestListener) process.stdout.write(`Ingestion (/batch/) listening on ${ingestListener.url}\n`);
  process.stdout.write(`Analytics platform listening on ${listener.url}\n`);

  let stopping = false;
  /**
   * SIGTERM or SIGINT: no new connections; websockets closed with 1001 (going away); requests in
   * progress, ingestion batches included, finish within SHUTDOWN_TIMEOUT_SECONDS; then the
   * workers stop (a batch export run is given back for another process), the subgraphs close, and
   * the embedded PostgreSQL shuts down.
   */
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const graceMs = settings.SHUTDOWN_TIMEOUT_SECONDS * 1000;
    log.info({ signal, grace_ms: graceMs }, 'shutting down: requests in progress may finish');
    await Promise.allSettled([ingestListener?.close(graceMs), listener.close(graceMs), metricsListener?.close()]);
    await Promise.resolve(gateway.dispose()).catch(() => undefined);
    await subgraphs.stop();
    await closeRateLimiter();
    log.info({ signal }, 'stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('uncaughtException', (error) => {
    log.fatal({ err: error }, 'uncaught exception');
    void subgraphs.stop().finally(() => process.exit(1));
  });
}

/** With INGEST_PORT set, `/batch/` gets a listener of its own too (the main one keeps serving it). */
async function listenIngestPort(settings: Config, ingest: IngestHandler, subgraphs: Subgraphs, log: Logger, main: Listener): Promise<Listener | undefined> {
  if (settings.INGEST_PORT === undefined) return undefined;
  try {
    return await listenIngest({ host: settings.HOST, port: settings.INGEST_PORT, ingest, healthy: subgraphs.healthy, maxIngestBodyBytes: settings.MAX_INGEST_BODY_BYTES, log });
  } catch (error) {
    await main.close();
    throw error;
  }
}

async function localSubgraphs(settings: Config, log: Logger): Promise<Subgraphs> {
  const running = await startSubgraphs(settings, log);
  return { urls: running.urls, local: running.local, healthy: running.healthy, stop: running.stop, embedded: Boolean(running.database.embedded) };
}

/** Subgraphs run elsewhere: healthy when every one answers its own /healthz. */
function remoteSubgraphs(spec: string): Subgraphs {
  const named = spec === '*' ? {} : Object.fromEntries(spec.split(',').map((pair) => pair.split('=') as [string, string]));
  const urls = Object.fromEntries(readSupergraphConfig().map((entry) => [entry.name, named[entry.name] ?? entry.routing_url]));
  const healthy = async () => {
    const answers = await Promise.all(
      Object.values(urls).map((url) =>
        fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(2000) }).then(
          (response) => response.ok,
          () => false,
        ),
      ),
    );
    return answers.every(Boolean);
  };
  return { urls, healthy, stop: async () => undefined, embedded: false };
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `start-up failed: ${error instanceof Error ? error.message : String(error)}`}\n`);
  process.exit(1);
});
