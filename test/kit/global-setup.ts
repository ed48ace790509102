import type {} from 'vitest';
import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';

/** The server the suites create their database on: the machine's PostgreSQL unless told otherwise. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}

/**
 * Once per run: compile to dist/ (the suites that start real processes run the built code, as
 * `npm start` does) and create a fresh database that every suite of this run shares.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  const databaseUrl = await createScratchDatabase(TEST_SERVER_URL, 'analytics_test');
  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', TEST_REDIS_URL);
  return async () => {
    await dropDatabase(databaseUrl);
  };
}
