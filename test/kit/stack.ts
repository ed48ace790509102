import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useInProcessAnswers } from '../../rest-compat/executors.js';
import { Authenticator } from '../../router/auth.js';
import { createGateway, loadSupergraph, type Gateway } from '../../router/gateway.js';
import { listenIngest } from '../../router/ingest-listener.js';
import { listen, type Listener } from '../../router/listener.js';
import { restOverRouter } from '../../router/process/platform.server.js';
import { startSubgraphs, type RunningSubgraphs } from '../../router/process/platform.js';
import { ActorSigner } from '../../subgraphs/shared/auth/actor.js';
import { parseConfig, setConfig, type Config } from '../../subgraphs/shared/config.js';
import { createLogger } from '../../subgraphs/shared/logger.js';
import { configuredKeyThrottle } from '../../router/throttle.js';
import { eventsStoreEnv } from './events-store.js';
import { LOOPBACK_DESTINATIONS } from './process.js';
import { TEST_SECRET_KEY } from './secret.js';

export { TEST_SECRET_KEY };

export interface StackOptions {
  databaseUrl: string;
  /** Redis pub/sub when given; in-process otherwise. */
  redisUrl?: string;
  redisPrefix?: string;
  maxBodyBytes?: number;
  maxLargeBodyBytes?: number;
  maxIngestBodyBytes?: number;
  /** Serve `/batch/` on a listener of its own too, as INGEST_PORT does. */
  ingestListener?: boolean;
  /** Mail goes to this SMTP server; kept in the outbox otherwise. */
  smtpUrl?: string;
  /** More settings (provider base URLs, timeouts). */
  env?: Record<string, string>;
}

export interface Stack {
  config: Config;
  url: string;
  graphqlUrl: string;
  wsUrl: string;
  /** Where `/batch/` is served: the ingest listener when asked for, else the main one. */
  ingestUrl: string;
  subgraphs: RunningSubgraphs;
  /** The router's runtime, as the listener serves it. */
  gateway: Gateway;
  listener: Listener;
  stop(): Promise<void>;
}

/**
 * The whole platform in this process, as `npm start` assembles it, on a free port: real
 * subgraph listeners, the Hive Gateway router, the REST layer, real PostgreSQL (and Redis).
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const config = setConfig(
    parseConfig({
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      REDIS_CHANNEL_PREFIX: options.redisPrefix ?? `test-${process.pid}-${Date.now()}:`,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-test-')),
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      PORT: '0',
      MAX_BODY_BYTES: String(options.maxBodyBytes ?? 1_048_576),
      MAX_LARGE_BODY_BYTES: String(options.maxLargeBodyBytes ?? 16 * 1_048_576),
      ...(options.maxIngestBodyBytes ? { MAX_INGEST_BODY_BYTES: String(options.maxIngestBodyBytes) } : {}),
      SMTP_URL: options.smtpUrl,
      // Every stack of a run shares the database, and any of them may work a batch export run:
      // the same quick policy everywhere (read at once, a retry a second later, three tries).
      BATCH_EXPORT_SETTLE_SECONDS: '0',
      BATCH_EXPORT_RETRY_DELAY_SECONDS: '1',
      BATCH_EXPORT_MAX_ATTEMPTS: '3',
      // Suites make hundreds of calls a minute with one key; the rate-limit suite sets its own.
      RATE_LIMIT_PERSONAL_KEY_PER_MINUTE: '0',
      RATE_LIMIT_PERSONAL_KEY_PER_HOUR: '0',
      RATE_LIMIT_PROJECT_TOKEN_PER_MINUTE: '0',
      DESTINATION_ALLOWED_HOSTS: LOOPBACK_DESTINATIONS,
      ...eventsStoreEnv(options.databaseUrl),
      ...options.env,
    }),
  );
  const log = createLogger(config.LOG_LEVEL, 'test');
  const subgraphs = await startSubgraphs(config, log);
  const signer = new ActorSigner(config.SECRET_KEY);
  const authenticator = new Authenticator(signer, { accounts: subgraphs.urls.accounts!, projects: subgraphs.urls.projects! }, { local: subgraphs.local });
  await authenticator.follow(subgraphs.pubsub);
  const gateway = createGateway({ supergraph: loadSupergraph(subgraphs.urls), authenticator, signer, log, local: subgraphs.local, plugins: [useInProcessAnswers()] });
  const throttle = await configuredKeyThrottle(authenticator, config);
  const rest = restOverRouter({ gateway, authenticator, throttle, log, maxIngestBodyBytes: config.MAX_INGEST_BODY_BYTES });
  const listener = await listen({
    host: '127.0.0.1',
    port: 0,
    gateway,
    authenticator,
    rest: rest.handle,
    ingest: rest.ingest,
    maxIngestBodyBytes: config.MAX_INGEST_BODY_BYTES,
    health: subgraphs.health,
    maxBodyBytes: config.MAX_BODY_BYTES,
    maxLargeBodyBytes: config.MAX_LARGE_BODY_BYTES,
    takesLargeBody: rest.takesLargeBody,
    allowedMethods: rest.allowedMethods,
    throttle,
    log,
  });
  const ingest = options.ingestListener
    ? await listenIngest({ host: '127.0.0.1', port: 0, ingest: rest.ingest, health: subgraphs.health, maxIngestBodyBytes: config.MAX_INGEST_BODY_BYTES, log })
    : undefined;
  return {
    config,
    url: listener.url,
    ingestUrl: ingest?.url ?? listener.url,
    graphqlUrl: `${listener.url}/graphql`,
    wsUrl: `${listener.url.replace('http', 'ws')}/graphql`,
    subgraphs,
    gateway,
    listener,
    stop: async () => {
      await ingest?.close();
      await listener.close();
      await Promise.resolve(gateway.runtime.dispose());
      await subgraphs.stop();
    },
  };
}
