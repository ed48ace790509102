import type {} from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { EmbeddedDatabase } from '../../subgraphs/shared/db/embedded.js';
import { createLogger } from '../../subgraphs/shared/logger.js';
import { dropForkDatabases } from './fork-database.js';
import { BUILD_DIR } from './process.js';

/** The machine's PostgreSQL, unless TEST_DATABASE_URL names another server. */
const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}

/**
 * Once per run: compile into a build directory of the tests' own (the suites that start real
 * processes run the built code, as `npm start` does, without touching a `dist/` in use), and
 * create a fresh database that every suite of this run shares: on TEST_DATABASE_URL's server, on
 * the machine's PostgreSQL, or, when there is none, on an embedded PostgreSQL started for the run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Every tier of a run has this setup (vitest runs it once a tier, in one process): they share
  // the build and the server, and each gets a database of its own.
  const run = ((globalThis as { analyticsTestRun?: SharedRun }).analyticsTestRun ??= { prepared: prepare(), tiers: 0 });
  run.tiers++;
  const server = await run.prepared;
  const databaseUrl = await createScratchDatabase(server.url, 'analytics_test');
  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', TEST_REDIS_URL);
  return async () => {
    // The tier's files run in parallel forks: fork 1 uses this database, each other one its own.
    await dropForkDatabases(databaseUrl);
    await dropDatabase(databaseUrl);
    if (--run.tiers === 0) await server.stop();
  };
}

interface SharedRun {
  prepared: Promise<{ url: string; stop: () => Promise<void> }>;
  tiers: number;
}

async function prepare(): Promise<{ url: string; stop: () => Promise<void> }> {
  // CI runs the tiers one after another on one checkout: the first one's build serves the rest.
  if (!(process.env.TEST_BUILD_REUSE && existsSync(BUILD_DIR))) {
    rmSync(BUILD_DIR, { recursive: true, force: true });
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', BUILD_DIR, '--incremental', 'false'], { stdio: 'inherit' });
  }
  return databaseServer();
}

async function databaseServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => undefined };
  if (await answers(DEFAULT_SERVER_URL)) return { url: DEFAULT_SERVER_URL, stop: async () => undefined };
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-test-pg-'));
  const embedded = await EmbeddedDatabase.start(dataDir, createLogger('warn', 'test'));
  process.stderr.write(`No PostgreSQL at ${DEFAULT_SERVER_URL}: the tests run on an embedded one.\n`);
  return {
    url: embedded.url,
    stop: async () => {
      await embedded.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
