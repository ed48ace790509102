import 'reflect-metadata';
import { subgraphs } from '../../index.js';
import { ConfigError, parseConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { openDatabase } from './database.js';
import { migrate } from './migrate.js';
import { openOrm } from './orm.js';

/** `npm run db:migrate`: applies every subgraph's pending migrations, with progress in the log. */
async function main(): Promise<void> {
  const config = parseConfig();
  const log = createLogger(config.LOG_LEVEL, 'migrate');
  const database = await openDatabase(config, log);
  try {
    for (const subgraph of subgraphs) {
      const orm = await openOrm(subgraph, database.url, 2);
      try {
        const applied = await migrate(subgraph, orm, log);
        process.stdout.write(`${subgraph.name}: ${applied.length === 0 ? 'up to date' : `applied ${applied.join(', ')}`}\n`);
      } finally {
        await orm.close();
      }
    }
  } finally {
    await database.embedded?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError ? error.message : `migration failed: ${(error as Error).message}`}\n`);
    process.exit(1);
  },
);
