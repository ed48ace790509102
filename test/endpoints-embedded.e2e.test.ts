import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsPath, hogql, SEED_EVENTS } from './kit/endpoints.js';
import { ESCAPE_ATTEMPTS, HOGQL_CASES } from './kit/hogql-cases.js';
import { api } from './kit/http.js';
import { freePort, startPlatform, type Platform } from './kit/process.js';
import type { Tenant } from './kit/seed.js';

/** `npm start` on its defaults (embedded PostgreSQL, in-process pub/sub): the HogQL table and the escapes again. */
describe('saved endpoints in embedded mode', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-embedded-endpoints-'));
  let platform: Platform | undefined;
  let owner: Tenant;
  const call = (method: string, rest: string, body?: unknown) => api(platform!.url, method, endpointsPath(owner, rest), { key: owner.personal_api_key, body });

  beforeAll(async () => {
    platform = await startPlatform({ DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'warn' });
    owner = { ...JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')), email: 'admin@localhost' } as Tenant;
    const batch = SEED_EVENTS.map((event) => ({ uuid: crypto.randomUUID(), ...event }));
    const sent = await api(platform.url, 'POST', '/batch/', { body: { api_key: owner.project_api_key, historical_migration: true, batch } });
    expect(sent.status, sent.text).toBe(200);
    // The profile worker applies person and group changes a moment after the batch.
    await createAndRun('profiles_ready', 'select count() from groups', async (run) => {
      const deadline = Date.now() + 15_000;
      while (JSON.stringify((await run()).body.results) !== '[[2]]') {
        if (Date.now() > deadline) throw new Error('the groups of the seed events were not applied in 15 s');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  });
  afterAll(async () => {
    platform?.child.kill('SIGTERM');
    await platform?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function createAndRun(name: string, query: string, check: (run: () => ReturnType<typeof call>) => Promise<void>, declared?: Record<string, unknown>) {
    const created = await call('POST', '', { name, query: hogql(query, declared) });
    expect(created.status, created.text).toBe(201);
    await check(() => call('POST', `${name}/run`, { refresh: 'force' }));
  }

  it('answers every case of the HogQL table', async () => {
    for (const [index, testCase] of HOGQL_CASES.entries()) {
      const created = await call('POST', '', { name: `case_${index}`, query: hogql(testCase.query, testCase.declared) });
      expect(created.status, created.text).toBe(201);
      const run = await call('POST', `case_${index}/run`, { refresh: 'force', ...(testCase.variables ? { variables: testCase.variables } : {}) });
      expect(run.status, `${testCase.query}: ${run.text}`).toBe(200);
      expect(run.body.results, testCase.query).toEqual(testCase.rows);
    }
  });

  it('refuses every escape attempt', async () => {
    for (const attempt of ESCAPE_ATTEMPTS) {
      const response = await call('POST', '', { name: 'escape', query: hogql(attempt.query) });
      expect(response.status, attempt.query).toBe(400);
      if (attempt.names) expect(response.body.detail).toContain(attempt.names);
    }
  });

  it('materializes on the job queue of the embedded database', async () => {
    const created = await call('POST', '', { name: 'kept', query: hogql("select count() from events where event = '$pageview'"), is_materialized: true, sync_frequency: '5min' });
    expect(created.status, created.text).toBe(201);
    await expect.poll(async () => (await call('GET', 'kept/materialization_status')).body.status, { timeout: 15_000 }).toBe('Completed');
    const run = await call('POST', 'kept/run', {});
    expect(run.body).toMatchObject({ results: [[6]], endpoint_materialized: true });
  });
});
