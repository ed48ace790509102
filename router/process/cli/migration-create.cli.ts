import 'reflect-metadata';
import { readdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readSupergraphConfig } from '../../../schema/compose.js';
import { cliProgram, runCommand, SETTINGS_HELP, UsageError } from '../../../subgraphs/shared/cli.js';
import { parseConfig } from '../../../subgraphs/shared/config.js';
import { createLogger } from '../../../subgraphs/shared/logger.js';

const SUBGRAPH_NAMES = readSupergraphConfig().map((entry) => entry.name);

const program = cliProgram(
  'npm run db:migration:create --',
  "Writes the migration that brings each subgraph's committed migrations up to its entities, and lists it in " +
    "the subgraph's migrations/index.ts (run from the repository's root).",
)
  .argument('[subgraph]', `only this subgraph: ${SUBGRAPH_NAMES.join(', ')}`)
  .addHelpText('after', SETTINGS_HELP);

/**
 * `npm run db:migration:create [-- <subgraph>]`: for each subgraph whose entities differ from what
 * its committed migrations build, writes the migration that closes the gap and lists it in the
 * subgraph's `migrations/index.ts`. The diff is taken on a scratch database of the subgraph's own
 * (another subgraph's schema would look like something to drop), dropped afterwards.
 */
async function main(_options: object, [only]: string[]): Promise<number> {
  if (only && !SUBGRAPH_NAMES.includes(only)) throw new UsageError(`no subgraph named ${only}`);
  // The platform's code only once the call is known good: the help and a mistake answer at once.
  const [{ subgraphs }, { createScratchDatabase, dropDatabase, openDatabase }, { migrate }, { openOrm, schemaOf }] = await Promise.all([
    import('../../../subgraphs/index.js'),
    import('../../../subgraphs/shared/db/database.js'),
    import('../../../subgraphs/shared/db/migrate.js'),
    import('../../../subgraphs/shared/db/orm.js'),
  ]);
  const chosen = subgraphs.filter((candidate) => !only || candidate.name === only);
  const log = createLogger('warn');
  const database = await openDatabase(parseConfig(), log);
  try {
    for (const subgraph of chosen) {
      const scratch = await createScratchDatabase(database.url, 'migration_scratch');
      const orm = await openOrm(subgraph, scratch, 2);
      try {
        await migrate(subgraph, orm, log);
        const result = await orm.getMigrator().createMigration(`subgraphs/${subgraph.name}/migrations`, false, false, schemaOf(subgraph));
        if (result.fileName) {
          writeIndex(subgraph.name);
          process.stdout.write(`${subgraph.name}: wrote ${result.fileName}\n`);
        } else {
          process.stdout.write(`${subgraph.name}: up to date\n`);
        }
      } finally {
        await orm.close();
        await dropDatabase(scratch);
      }
    }
  } finally {
    await database.embedded?.stop();
  }
  return 0;
}

function writeIndex(name: string): void {
  const dir = resolve(`subgraphs/${name}/migrations`);
  const files = readdirSync(dir)
    .filter((file) => /^Migration\d+.*\.ts$/.test(file))
    .sort()
    .map((file) => file.replace(/\.ts$/, ''));
  const imports = files.map((file) => `import { ${file} } from './${file}.js';`).join('\n');
  const list = files.map((file) => `  { name: '${file}', class: ${file} },`).join('\n');
  writeFileSync(
    resolve(dir, 'index.ts'),
    `import type { MigrationObject } from '@mikro-orm/core';\n${imports}\n\n/** Every migration of this subgraph, oldest first (generated files, committed). */\nexport const migrations: MigrationObject[] = [\n${list}\n];\n`,
  );
}

runCommand(program, 'migration:create failed', main);
