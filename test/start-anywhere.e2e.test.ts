import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort, startPlatform } from './kit/process.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

/**
 * `node /path/to/dist/router/process/main.js` started in another directory (a service manager's): the
 * schemas it reads are the repository's, not the working directory's.
 */
describe('started outside the repository', () => {
  it('serves GraphQL and REST', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'analytics-elsewhere-'));
    const env = { DATABASE_URL: inject('databaseUrl'), SECRET_KEY: TEST_SECRET_KEY, DATA_DIR: join(elsewhere, 'data'), PORT: String(await freePort()), LOG_LEVEL: 'warn' };
    const platform = await startPlatform(env, 90_000, { cwd: elsewhere });
    try {
      const graphql = await fetch(`${platform.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
      expect(await graphql.json()).toEqual({ data: { __typename: 'Query' } });
      expect((await fetch(`${platform.url}/api/schema/`)).status).toBe(200);
    } finally {
      platform.child.kill('SIGTERM');
    }
    expect(await platform.exited).toBe(0);
  }, 120_000);
});
