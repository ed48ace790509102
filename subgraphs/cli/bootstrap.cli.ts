import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { subgraphNamed } from '../index.js';
import { embeddedUrlFile } from '../platform.js';
import { ConfigError, parseConfig, setConfig } from '../shared/config.js';
import { openDatabase } from '../shared/db/database.js';
import { dataDirHolder } from '../shared/db/embedded.js';
import { migrate } from '../shared/db/migrate.js';
import { openOrm } from '../shared/db/orm.js';
import { AppError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import { projectsFacade } from '../projects/facade.js';

/**
 * `npm run bootstrap -- --email E --password P [--organization N] [--project N]`: prints one JSON
 * object on stdout (logs go to stderr). Works beside a running server: on DATABASE_URL, or on the
 * embedded database a running platform announces in `$DATA_DIR`.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      organization: { type: 'string' },
      project: { type: 'string' },
    },
  });
  if (!values.email || !values.password) {
    throw new UsageError('usage: npm run bootstrap -- --email EMAIL --password PASSWORD [--organization NAME] [--project NAME]');
  }
  const config = setConfig(parseConfig());
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
    const result = await projectsFacade.bootstrap(
      { accounts: accountsOrm.em.fork(), projects: projectsOrm.em.fork() },
      { email: values.email, password: values.password, organization: values.organization, project: values.project },
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await Promise.all([accountsOrm.close(), projectsOrm.close()]);
    await database.embedded?.stop();
  }
}

class UsageError extends Error {}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const known = error instanceof ConfigError || error instanceof UsageError || error instanceof AppError;
    process.stderr.write(`${known ? (error as Error).message : `bootstrap failed: ${String((error as Error).stack ?? error)}`}\n`);
    process.exit(known && !(error instanceof UsageError) ? 1 : 2);
  },
);
