import 'reflect-metadata';
import { resolve } from 'node:path';
import { runCommand } from '../../../../subgraphs/shared/cli.js';
import { parseClickHouseUrl } from '../../../../subgraphs/shared/clickhouse/clickhouse-url.js';
import { ConfigError, parseConfig, setConfig } from '../../../../subgraphs/shared/config.js';
import { createLogger, writeAfterLogs } from '../../../../subgraphs/shared/logger.js';
import { CheckpointMismatch, destinationOf } from './events-copy.checkpoint.js';
import { copyOptions, copyProgram, type CopyArguments } from './events-copy.options.js';

/**
 * `npm run events:copy -- --environment <id> | --all`: moves an installation's events from
 * PostgreSQL to ClickHouse (see the README on switching). Progress goes to standard error,
 * standard output gets one JSON summary. Ctrl-C stops after the page at work and keeps the
 * checkpoint; running the same command again goes on from it.
 */
async function main(values: CopyArguments): Promise<number> {
  const options = copyOptions(values);
  const config = setConfig(parseConfig());
  if (!config.CLICKHOUSE_URL) throw new ConfigError('CLICKHOUSE_URL', 'must be set: it names the ClickHouse the events are copied to (http(s)://user:password@host:8123/database or chdb:<directory>)');
  const destination = destinationOf(parseClickHouseUrl(config.CLICKHOUSE_URL));
  // The platform's code only once the call is known good: the help and a mistake answer at once.
  const [{ withEventStores }, { EventsCopier }, { mismatchLine }] = await Promise.all([import('../events-stores.js'), import('./events-copy.runner.js'), import('./events-copy.check.js')]);
  const log = createLogger(config.LOG_LEVEL, 'events-copy');
  const checkpoint = options.checkpoint ?? resolve(config.DATA_DIR, 'events-copy.checkpoint.json');
  try {
    return await withEventStores(config, log, 'ingestion', async (em, clickhouse) => {
      const copier = new EventsCopier({ em, clickhouse, destination }, { ...options, checkpoint }, log);
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => {
          process.stderr.write(`\n${signal}: finishing the page at work, then saving the checkpoint…\n`);
          copier.stop();
        });
      }
      const summary = await copier.run();
      process.stdout.write(`${JSON.stringify(summary)}\n`);
      const mismatches = summary.environments.filter((check) => !check.matches);
      for (const check of mismatches) writeAfterLogs(log, mismatchLine(check));
      return summary.stopped ? 130 : mismatches.length > 0 ? 1 : 0;
    });
  } catch (error) {
    if (error instanceof CheckpointMismatch) {
      writeAfterLogs(log, `events copy stopped: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

runCommand(copyProgram, 'events copy failed', main);
