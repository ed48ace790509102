import '../../../subgraphs/shared/graphql-mode.js';
import 'reflect-metadata';
import { readSupergraphConfig } from '../../../schema/compose.js';
import { cliProgram, runCommand, SETTINGS_HELP, UsageError } from '../../../subgraphs/shared/cli.js';
import { config } from '../../../subgraphs/shared/config.js';
import { createLogger } from '../../../subgraphs/shared/logger.js';
import { STOP_SIGNALS } from '../../../subgraphs/shared/stop-signals.js';

const program = cliProgram(
  'node dist/router/process/cli/subgraph.cli.js',
  'Runs one subgraph alone, on SUBGRAPH_PORT or the port of its routing_url in supergraph.yaml, and prints its ' +
    'URL on stdout. Needs DATABASE_URL and REDIS_URL when the router runs elsewhere (SUBGRAPH_URLS).',
)
  .argument('<name>', 'the subgraph, as supergraph.yaml names it')
  .addHelpText('after', SETTINGS_HELP);

/**
 * `node dist/router/process/cli/subgraph.cli.js <name>`: one subgraph alone, on SUBGRAPH_PORT or the port of its
 * routing_url in supergraph.yaml. Needs DATABASE_URL and REDIS_URL when the router runs elsewhere.
 */
async function main(_options: object, [name]: string[]): Promise<void> {
  const entries = readSupergraphConfig();
  const entry = entries.find((candidate) => candidate.name === name);
  if (!entry) throw new UsageError(`no subgraph named ${name}: name one of ${entries.map((e) => e.name).join(', ')}`);
  const settings = config();
  const log = createLogger(settings.LOG_LEVEL, entry.name);
  // The platform's code only once the call is known good: the help and a mistake answer at once.
  const [{ startSubgraphs }, { listenMetrics }] = await Promise.all([import('../platform.js'), import('../../../subgraphs/shared/metrics.listener.js')]);
  // 0 asks for any free port (tests run subgraphs beside a deployment on the routing ports).
  const port = settings.SUBGRAPH_PORT ?? Number(new URL(entry.routing_url).port);
  const running = await startSubgraphs(settings, log, { only: [entry.name], port });
  process.stdout.write(`${running.urls[entry.name]}\n`);
  const metricsListener = settings.METRICS_PORT === undefined ? undefined : await listenMetrics({ host: settings.HOST, port: settings.METRICS_PORT, log });
  const stop = () => void Promise.allSettled([metricsListener?.close(), running.stop()]).finally(() => process.exit(0));
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
}

runCommand(program, 'start-up failed', main);
