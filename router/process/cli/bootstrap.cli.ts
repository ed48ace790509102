import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { Option } from 'commander';
import { cliProgram, runCommand, SETTINGS_HELP, UsageError } from '../../../subgraphs/shared/cli.js';
import { parseConfig, setConfig } from '../../../subgraphs/shared/config.js';
import { createLogger } from '../../../subgraphs/shared/logger.js';
import { bootstrapPassword } from './bootstrap.password.js';

interface BootstrapOptions {
  email?: string;
  password?: string;
  passwordFile?: string;
  organization?: string;
  project?: string;
}

const program = cliProgram(
  'npm run bootstrap --',
  'Creates (or reuses) a user, an organization the user owns and a project in it, and prints one JSON object on ' +
    'stdout: organization_id, project_id, environment_id, user_uuid, personal_api_key (every scope), project_api_key.\n\n' +
    'Run again for the same user, it prints a new personal API key (label "bootstrap"); the keys printed before ' +
    'keep working. At the limit of 10 keys, the oldest bootstrap key makes room.',
)
  .option('--email <address>', "the user's email (required); a new one creates the user")
  .addOption(
    new Option('--password <password>', 'the password (new user) or the one it has; visible to anyone who can list processes, prefer the two below')
      .env('BOOTSTRAP_PASSWORD'),
  )
  .option('--password-file <path>', 'read the password from this file (one trailing newline is dropped)')
  .option('--organization <name>', 'organization to create or reuse (default: "Default organization")')
  .option('--project <name>', 'project to create or reuse in it (default: "Default project")')
  .addHelpText(
    'after',
    '\nThe password comes from --password, else --password-file, else BOOTSTRAP_PASSWORD, else a prompt on the\n' +
      'terminal that does not echo. npm prints its banner on stderr (the project\'s .npmrc sets its JSON mode); when\n' +
      'the command fails, npm adds its own JSON record of the failure on stdout: read stdout after exit status 0.\n' +
      SETTINGS_HELP,
  );

/**
 * `npm run bootstrap -- --email E` (password from BOOTSTRAP_PASSWORD, a file or a prompt):
 * prints one JSON object on stdout (logs go to stderr). Works beside a running server: on
 * DATABASE_URL, or on the embedded database a running platform announces in `$DATA_DIR`.
 */
async function main(options: BootstrapOptions): Promise<number> {
  // Checked here rather than as commander's required option, which would hide an unknown one (`--emial`).
  if (!options.email) throw new UsageError('--email is required');
  const password = await bootstrapPassword({
    password: options.password,
    fromEnvironment: program.getOptionValueSource('password') === 'env',
    passwordFile: options.passwordFile,
  });
  const config = setConfig(parseConfig());
  // The platform's code (seconds of loading) only once the call is known good: the help and a
  // mistake answer at once.
  const [{ subgraphNamed }, { checkSecretKey, embeddedUrlFile }, { openDatabase }, { dataDirHolder }, { migrate }, { openOrm }, { bootstrap }] = await Promise.all([
    import('../../../subgraphs/index.js'),
    import('../platform.js'),
    import('../../../subgraphs/shared/db/database.js'),
    import('../../../subgraphs/shared/db/embedded.js'),
    import('../../../subgraphs/shared/db/migrate.js'),
    import('../../../subgraphs/shared/db/orm.js'),
    import('../bootstrap.js'),
  ]);
  const log = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, 'bootstrap');
  // A running platform's embedded database is announced in DATA_DIR; trust it only while that
  // platform lives (a file left by a crash names a server that is gone).
  const announced = embeddedUrlFile(config);
  const running = dataDirHolder(config.DATA_DIR) !== null && existsSync(announced);
  const url = config.DATABASE_URL ?? (running ? readFileSync(announced, 'utf8').trim() : undefined);
  const database = url ? { url, embedded: undefined } : await openDatabase(config, log);
  const accounts = subgraphNamed('accounts');
  const projects = subgraphNamed('projects');
  const [accountsOrm, projectsOrm] = await Promise.all([openOrm(accounts, database.url, 2), openOrm(projects, database.url, 2)]);
  try {
    await migrate(accounts, accountsOrm, log);
    await migrate(projects, projectsOrm, log);
    await checkSecretKey(projectsOrm.em.fork(), config.SECRET_KEY);
    const result = await bootstrap(
      { accounts: accountsOrm.em.fork(), projects: projectsOrm.em.fork() },
      { email: options.email, password, organization: options.organization, project: options.project },
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await Promise.all([accountsOrm.close(), projectsOrm.close()]);
    await database.embedded?.stop();
  }
}

runCommand(program, 'bootstrap failed', main);
