import 'reflect-metadata';
import { runCommand } from '../../../../subgraphs/shared/cli.js';
import { ConfigError, parseConfig, setConfig } from '../../../../subgraphs/shared/config.js';
import { createLogger } from '../../../../subgraphs/shared/logger.js';
import { materializeProgram, materializeRequest, type MaterializeArguments } from './events-materialize.options.js';

/**
 * `npm run events:materialize -- <property> [...] | --top <n> | --suggest`: materialized property
 * columns of the ClickHouse events table (docs/clickhouse.md, "Materialized columns"). Progress
 * goes to standard error, one line per property to standard output.
 */
async function main(values: MaterializeArguments, args: string[]): Promise<number> {
  // The platform's code only once the call is parsed: the help and a bad flag answer at once.
  const { ingestionFacade } = await import('../../../../subgraphs/ingestion/facade.js');
  const request = materializeRequest(values, args, ingestionFacade.materializedColumns.isMaterializable);
  const config = setConfig(parseConfig());
  if (!config.CLICKHOUSE_URL) throw new ConfigError('CLICKHOUSE_URL', 'must be set: the events are in PostgreSQL, which keeps no materialized columns (nothing to materialize)');
  const [{ withEventStores }, { materializeAll, propertiesOf, suggest }] = await Promise.all([import('../events-stores.js'), import('./events-materialize.runner.js')]);
  const log = createLogger(config.LOG_LEVEL, 'events-materialize');
  process.once('SIGINT', () => {
    process.stderr.write('\nSIGINT: a fill started goes on in ClickHouse; run the same command again to wait for it and let queries read the column.\n');
    process.exit(130);
  });
  return withEventStores(config, log, 'endpoints', async (endpoints, clickhouse) => {
    if (request.kind === 'suggest') await suggest(clickhouse, endpoints);
    else await materializeAll(clickhouse, await propertiesOf(request, endpoints), log);
    return 0;
  });
}

runCommand(materializeProgram, 'events materialize failed', main);
