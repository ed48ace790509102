import 'reflect-metadata';
import { cliProgram, runCommand, SETTINGS_HELP } from '../../../subgraphs/shared/cli.js';
import { parseConfig } from '../../../subgraphs/shared/config.js';
import { createLogger } from '../../../subgraphs/shared/logger.js';

const program = cliProgram(
  'npm run db:migrate --',
  "Applies every subgraph's pending migrations to DATABASE_URL (or the embedded database in DATA_DIR): one line " +
    'per subgraph on stdout, progress in the log on stderr. `npm start` does the same on start-up.',
).addHelpText('after', SETTINGS_HELP);

/** `npm run db:migrate`: applies every subgraph's pending migrations, with progress in the log. */
async function main(): Promise<number> {
  const config = parseConfig();
  // The platform's code only once the call is known good: the help and a mistake answer at once.
  const [{ subgraphs }, { openDatabase }, { migrate }, { openOrm }] = await Promise.all([
    import('../../../subgraphs/index.js'),
    import('../../../subgraphs/shared/db/database.js'),
    import('../../../subgraphs/shared/db/migrate.js'),
    import('../../../subgraphs/shared/db/orm.js'),
  ]);
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
  return 0;
}

runCommand(program, 'migration failed', main);
