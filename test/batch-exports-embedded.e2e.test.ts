import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../subgraphs/shared/db/database.js';
import { exportsPath, ingestedAsTheyHappened, postgresDestination, s3Destination, startS3, type S3Store } from './kit/batch-exports.js';
import { sql } from './kit/db.js';
import { SEED_EVENTS } from './kit/endpoints.js';
import { api } from './kit/http.js';
import { freePort, startPlatform, type Platform } from './kit/process.js';
import type { Tenant } from './kit/seed.js';

/** `npm start` on its defaults (embedded PostgreSQL, in-process pub/sub): runs on the job queue of the embedded database, to S3 and to another database of the same server. */
describe('batch exports in embedded mode', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-embedded-exports-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '' };
  let platform: Platform | undefined;
  let owner: Tenant;
  let store: S3Store;
  let databaseUrl: string;
  const call = (method: string, rest: string, body?: unknown) => api(platform!.url, method, exportsPath(owner, rest), { key: owner.personal_api_key, body });
  const runs = async (id: string) => (await api(platform!.url, 'GET', `${exportsPath(owner, `${id}/runs`)}?ordering=data_interval_start`, { key: owner.personal_api_key })).body.results as Record<string, any>[];

  /** A failure here shows what the platform logged (warnings and errors), not only the runs' states. */
  const withPlatformOutput = async (check: () => Promise<void>) => {
    try {
      await check();
    } catch (error) {
      (error as Error).message += `\nthe platform logged:\n${[...platform!.stdout, ...platform!.stderr].join('').slice(-4000)}`;
      throw error;
    }
  };

  beforeAll(async () => {
    env.PORT = String(await freePort());
    platform = await startPlatform(env);
    store = await startS3();
    owner = { ...JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')), email: 'admin@localhost' } as Tenant;
    databaseUrl = readFileSync(join(dataDir, 'embedded-database-url'), 'utf8').trim();
    const batch = SEED_EVENTS.map((event) => ({ uuid: crypto.randomUUID(), ...event }));
    const sent = await api(platform.url, 'POST', '/batch/', { body: { api_key: owner.project_api_key, historical_migration: true, batch } });
    expect(sent.status, sent.text).toBe(200);
    // The profile worker makes the persons a moment after the batch.
    const deadline = Date.now() + 15_000;
    while (Number((await sql<{ n: string }>(databaseUrl, 'select count(*) as n from ingestion.persons'))[0]!.n) < 3) {
      if (Date.now() > deadline) throw new Error('the persons of the seed events were not made in 15 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await ingestedAsTheyHappened(databaseUrl, owner.environment_id);
  });
  afterAll(async () => {
    platform?.child.kill('SIGTERM');
    await platform?.exited;
    await store?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exports a backfill to S3 and to another database of the embedded server, and keeps the exports across a restart', async () => {
    const destination = await createScratchDatabase(databaseUrl, 'export_embedded');
    const toS3 = await call('POST', '', { name: 's3', interval: 'day', destination: s3Destination(store, { prefix: 'embedded', compression: 'gzip' }) });
    const toPostgres = await call('POST', '', { name: 'pg', interval: 'day', model: 'persons', destination: postgresDestination(destination, { table_name: 'persons' }) });
    for (const created of [toS3, toPostgres]) {
      expect(created.status, created.text).toBe(201);
      expect((await call('POST', `${created.body.id}/backfills`, { start_at: '2026-01-05T00:00:00Z', end_at: '2026-01-08T00:00:00Z' })).status).toBe(201);
    }
    for (const created of [toS3, toPostgres]) {
      await withPlatformOutput(() => expect.poll(async () => (await runs(created.body.id)).map((run) => run.status).join(), { timeout: 30_000 }).toBe('Completed,Completed,Completed'));
    }
    const keys = await store.keys('embedded/');
    expect(keys).toHaveLength(3);
    expect(gunzipSync(await store.read(keys[0]!)).toString().trim().split('\n')).toHaveLength(7);
    expect(await sql(destination, 'select distinct_id from persons order by distinct_id')).toEqual([{ distinct_id: 'u1' }, { distinct_id: 'u2' }, { distinct_id: 'u3' }]);

    platform!.child.kill('SIGTERM');
    await platform!.exited;
    platform = await startPlatform(env);
    const listed = await call('GET', '');
    expect(listed.body.results.map((item: { name: string }) => item.name).sort()).toEqual(['pg', 's3']);
    expect((await call('GET', toS3.body.id)).body.latest_runs).toHaveLength(3);
  });
});
