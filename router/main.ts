import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createRest } from '../rest-compat/rest.js';
import { routerExecutor } from '../rest-compat/executors.js';
import { startSubgraphs } from '../subgraphs/index.js';
import { ActorSigner } from '../subgraphs/shared/auth/actor.js';
import { ConfigError, config } from '../subgraphs/shared/config.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { Authenticator } from './auth.js';
import { createGateway, loadSupergraph } from './gateway.js';
import { listen } from './listener.js';

/**
 * `npm start`: the whole platform in one process. The subgraphs listen on free loopback ports,
 * the router composes them from the committed supergraph, the REST layer runs in process on the
 * router, and one public listener serves it all.
 */
async function main(): Promise<void> {
  const settings = config();
  const log = createLogger(settings.LOG_LEVEL, 'router');
  const started = Date.now();
  const running = await startSubgraphs(settings, log);
  const signer = new ActorSigner(settings.SECRET_KEY);
  const authenticator = new Authenticator(signer, { accounts: running.urls.accounts!, projects: running.urls.projects! });
  const gateway = createGateway({ supergraph: loadSupergraph(running.urls), authenticator, signer, log });
  const rest = createRest({
    apiSdl: readFileSync(resolve(process.cwd(), 'schema/api.graphql'), 'utf8'),
    execute: routerExecutor(async (request) => gateway.fetch(request), 'http://router/graphql'),
    log,
  });
  const listener = await listen({
    host: settings.HOST,
    port: settings.PORT,
    gateway,
    authenticator,
    rest: rest.handle,
    healthy: running.healthy,
    maxBodyBytes: settings.MAX_BODY_BYTES,
    log,
  });
  log.info({ url: listener.url, ms: Date.now() - started, embedded_database: Boolean(running.database.embedded) }, 'platform listening');
  process.stdout.write(`Analytics platform listening on ${listener.url}\n`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await listener.close().catch(() => undefined);
    await Promise.resolve(gateway.dispose()).catch(() => undefined);
    await running.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('uncaughtException', (error) => {
    log.fatal({ err: error }, 'uncaught exception');
    void running.stop().finally(() => process.exit(1));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `start-up failed: ${(error as Error).message ?? error}`}\n`);
  process.exit(1);
});
