import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort, startPlatform } from './kit/process.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

/**
 * Every LOG_LEVEL the README lists starts the platform. The gateway runtime's logger reads
 * LOG_LEVEL too, and refused the two it does not know (`fatal`, `silent`) with an error that
 * stopped start-up (patches/@graphql-hive+logger).
 */
describe('LOG_LEVEL', () => {
  it.each(['fatal', 'silent'])('%s: the platform starts, answers, and stops', async (level) => {
    const platform = await startPlatform({
      DATABASE_URL: inject('databaseUrl'),
      SECRET_KEY: TEST_SECRET_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-log-level-')),
      PORT: String(await freePort()),
      LOG_LEVEL: level,
    });
    try {
      const answer = await fetch(`${platform.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
      expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
    } finally {
      platform.child.kill('SIGTERM');
    }
    expect(await platform.exited).toBe(0);
    expect(platform.stderr.join('')).toBe('');
  }, 120_000);
});
