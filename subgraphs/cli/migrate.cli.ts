import 'reflect-metadata';
import { subgraphs } from '../index.js';
import { ConfigError, parseConfig } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { openDatabase } from '../shared/db/database.js';
import { migrate } from '../shared/db/migrate.js';
import { openOrm } from '../shared/db/orm.js';

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
