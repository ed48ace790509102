import '../../subgraphs/shared/graphql-mode.js';
import 'reflect-metadata';
import cluster from 'node:cluster';
import { resolve } from 'node:path';
import { cliProgram, SETTINGS_HELP } from '../../subgraphs/shared/cli.js';
import { ConfigError, config, type Config } from '../../subgraphs/shared/config.js';
import { isDatabaseUnavailable, isLoginRefused } from '../../subgraphs/shared/db/database-unavailable.js';
import { createLogger, writeAfterLogs, type Logger } from '../../subgraphs/shared/logger.js';
import { ReportedError, tellPrimary } from './cluster.news.js';
import { holdWhileStarting } from './starting.listener.js';

/**
 * `npm start`: the whole platform in each of WORKERS processes (one: this one). The subgraphs
 * listen on free loopback ports (the router calls them in process, but for subscriptions), the
 * router composes them from the committed supergraph, the REST layer runs in process on the
 * router, and one public listener serves it all. With WORKERS above 1 this process is the cluster's
 * primary (see cluster.primary.ts) and its workers share the listeners' ports. With SUBGRAPH_URLS
 * set, the router runs alone and routes to subgraphs that run elsewhere.
 */
/** The process's logger, once the settings gave its level: a failed start's last line follows its records. */
let log: Logger | undefined;
let settings: Config | undefined;

async function main(): Promise<void> {
  // Before the settings are read: `--help` must work without them; a mistake exits 2 with the usage.
  cliProgram('npm start --', 'The whole platform: subgraphs, router, REST layer and ingestion, in WORKERS processes.').addHelpText('after', SETTINGS_HELP).parse();
  settings = config();
  log = createLogger(settings.LOG_LEVEL, 'router');
  const started = Date.now();
  // The public port is held before the rest is loaded (a second or two): from here on it answers
  // that the platform is starting (starting.listener.ts). A cluster's workers have their primary's.
  const port = cluster.isWorker ? undefined : await holdWhileStarting(settings.HOST, settings.PORT);
  if (cluster.isPrimary && settings.WORKERS > 1 && !settings.SUBGRAPH_URLS) return (await import('./cluster.primary.js')).runPrimary(settings, log, port!);
  // Loaded only where requests are served: a cluster's primary never needs the router or the REST layer.
  const [{ runPlatform }, { primaryPortHold }] = await Promise.all([import('./platform.server.js'), import('./cluster.primary.js')]);
  await runPlatform(settings, log, started, port ?? primaryPortHold(settings.HOST));
}

/**
 * A failed start's one line: a setting's own error, else the cause, naming the setting behind it
 * where one is (a DATABASE_URL whose server cannot be reached, a DATA_DIR that cannot be made).
 */
function failureLine(error: unknown): string {
  if (error instanceof ConfigError || error instanceof ReportedError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  if (settings?.DATABASE_URL && (isDatabaseUnavailable(error) || isLoginRefused(error))) return `invalid setting DATABASE_URL: cannot connect to PostgreSQL: ${message}`;
  const path = (error as { path?: unknown }).path;
  if (settings && typeof path === 'string' && `${resolve(path)}/`.startsWith(`${resolve(settings.DATA_DIR)}/`)) return `invalid setting DATA_DIR: ${message}`;
  return `start-up failed: ${message}`;
}

main().catch((error: unknown) => {
  const line = failureLine(error);
  // A worker's failure is the primary's to print: one line, however many workers fail alike.
  if (cluster.isWorker) tellPrimary({ platform: 'failed', line }, () => process.exit(1));
  else {
    writeAfterLogs(log, line);
    process.exit(1);
  }
});
