import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { LOOPBACK_DESTINATIONS } from './process.js';
import { TEST_SECRET_KEY } from './secret.js';

// Code that reads the process configuration outside a started stack (seed builders) seals
// secrets with the run's key, and nothing writes a secret-key file into the working tree.
process.env.SECRET_KEY ??= TEST_SECRET_KEY;
process.env.DATA_DIR ??= mkdtempSync(join(tmpdir(), 'analytics-test-data-'));
// Destinations of suites without a stack (s3rver, the machine's PostgreSQL) listen on loopback.
process.env.DESTINATION_ALLOWED_HOSTS ??= LOOPBACK_DESTINATIONS;

// The tiers' files run in parallel forks, each on a database of its own (kit/fork-database.ts):
// `inject('databaseUrl')` answers this fork's. Vitest provides one value per tier, so the worker's
// copy of the provided context is set here, before the file's own code runs.
const tierDatabase = inject('databaseUrl');
if (tierDatabase) {
  const { forkDatabase } = await import('./fork-database.js');
  const state = (globalThis as { __vitest_worker__?: { providedContext: Record<string, unknown> } }).__vitest_worker__;
  const databaseUrl = await forkDatabase(tierDatabase, Number(process.env.VITEST_POOL_ID));
  if (state) state.providedContext.databaseUrl = databaseUrl;
  if (inject('databaseUrl') !== databaseUrl) throw new Error("test/kit/setup.ts could not give this fork its database: vitest's worker state has changed");
}
