import '../subgraphs/shared/graphql-mode.js';
import 'reflect-metadata';
import cluster from 'node:cluster';
import { cliProgram, SETTINGS_HELP } from '../subgraphs/shared/cli.js';
import { ConfigError, config } from '../subgraphs/shared/config.js';
import { createLogger, writeAfterLogs, type Logger } from '../subgraphs/shared/logger.js';
import { ReportedError, runPrimary, tellPrimary } from './cluster.primary.js';

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

async function main(): Promise<void> {
  // Before the settings are read: `--help` must work without them; a mistake exits 2 with the usage.
  cliProgram('npm start --', 'The whole platform: subgraphs, router, REST layer and ingestion, in WORKERS processes.').addHelpText('after', SETTINGS_HELP).parse();
  const settings = config();
  log = createLogger(settings.LOG_LEVEL, 'router');
  const started = Date.now();
  if (cluster.isPrimary && settings.WORKERS > 1 && !settings.SUBGRAPH_URLS) return runPrimary(settings, log);
  // Loaded only where requests are served: a cluster's primary never needs the router or the REST layer.
  const { runPlatform } = await import('./platform.server.js');
  await runPlatform(settings, log, started);
}

main().catch((error: unknown) => {
  const line = error instanceof ConfigError || error instanceof ReportedError ? error.message : `start-up failed: ${error instanceof Error ? error.message : String(error)}`;
  // A worker's failure is the primary's to print: one line, however many workers fail alike.
  if (cluster.isWorker) tellPrimary({ platform: 'failed', line }, () => process.exit(1));
  else {
    writeAfterLogs(log, line);
    process.exit(1);
  }
});
