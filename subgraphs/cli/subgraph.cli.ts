import 'reflect-metadata';
import { readSupergraphConfig } from '../../schema/compose.js';
import { startSubgraphs } from '../platform.js';
import { ConfigError, config } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { listenMetrics } from '../shared/metrics.listener.js';

/**
 * `node dist/subgraphs/cli/subgraph.cli.js <name>`: one subgraph alone, on SUBGRAPH_PORT or the port of its
 * routing_url in supergraph.yaml. Needs DATABASE_URL and REDIS_URL when the router runs elsewhere.
 */
async function main(): Promise<void> {
  const name = process.argv[2];
  const entry = readSupergraphConfig().find((candidate) => candidate.name === name);
  if (!entry) throw new ConfigError('subgraph', `name one of ${readSupergraphConfig().map((e) => e.name).join(', ')}`);
  const settings = config();
  const log = createLogger(settings.LOG_LEVEL, name);
  const port = settings.SUBGRAPH_PORT || Number(new URL(entry.routing_url).port);
  const running = await startSubgraphs(settings, log, { only: [entry.name], port });
  process.stdout.write(`${running.urls[entry.name]}\n`);
  const metricsListener = settings.METRICS_PORT === undefined ? undefined : await listenMetrics({ host: settings.HOST, port: settings.METRICS_PORT, log });
  const stop = () => void Promise.allSettled([metricsListener?.close(), running.stop()]).finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `start-up failed: ${(error as Error).message}`}\n`);
  process.exit(1);
});
