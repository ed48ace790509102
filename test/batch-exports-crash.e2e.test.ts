import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { exportsPath, ingestedAsTheyHappened, postgresDestination } from './kit/batch-exports.js';
import { sql } from './kit/db.js';
import { api } from './kit/http.js';
import { freePort, killTree, startPlatform, type Platform } from './kit/process.js';
import { seedTenant } from './kit/seed.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

/**
 * A receiver that holds every request of a chunk past the first until `release()`, and records what
 * it accepted. `drop()` forgets the held ones unanswered: their sender was killed, so no answer
 * reached it (whether the receiver has seen the connection close yet is a race of its own).
 */
async function holdingReceiver() {
  const accepted: { key: string; body: string }[] = [];
  const held: (() => void)[] = [];
  let holding = true;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const key = String(request.headers['idempotency-key']);
      const answer = () => {
        if (response.destroyed) return;
        accepted.push({ key, body: Buffer.concat(chunks).toString() });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"status": "Ok"}');
      };
      if (holding && !key.endsWith('-0')) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/batch/`,
    accepted,
    held,
    drop() {
      held.splice(0);
    },
    release() {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Exactly once across a crash: the platform (as `npm start` runs it) is killed with SIGKILL while
 * one run is in the middle of a PostgreSQL COPY and another between two HTTP chunks, then started
 * again. The new process takes both runs over once their heartbeats go stale: the PostgreSQL run is
 * redone (the killed transaction left nothing), the HTTP run goes on at the chunk that was in
 * flight, under the same idempotency key; no row is written twice and none is lost.
 */
describe('a SIGKILL in the middle of batch export runs', () => {
  const platforms: Platform[] = [];
  let destination: string | undefined;
  afterAll(async () => {
    for (const platform of platforms) platform.child.kill('SIGKILL');
    if (destination) await dropDatabase(destination);
  });

  it('redoes or resumes each run in the next process, without a duplicate row or chunk', async () => {
    const env = {
      DATABASE_URL: inject('databaseUrl'),
      SECRET_KEY: TEST_SECRET_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-export-crash-')),
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      BATCH_EXPORT_SETTLE_SECONDS: '0',
      BATCH_EXPORT_RETRY_DELAY_SECONDS: '1',
      BATCH_EXPORT_MAX_ATTEMPTS: '3',
    };
    const start = async () => {
      const platform = await startPlatform(env);
      platforms.push(platform);
      return platform;
    };
    let platform = await start();
    const owner = await seedTenant(inject('databaseUrl'), 'exports-crash');
    const events = Array.from({ length: 12_000 }, (_, index) => ({ uuid: crypto.randomUUID(), event: 'tick', distinct_id: `user-${index % 30}`, timestamp: new Date(Date.UTC(2026, 0, 5, 2, 0, 0, index)).toISOString(), properties: { index } }));
    for (let offset = 0; offset < events.length; offset += 2000) {
      const response = await api(platform.url, 'POST', '/batch/', { body: { api_key: owner.project_api_key, historical_migration: true, batch: events.slice(offset, offset + 2000) } });
      expect(response.status, response.text).toBe(200);
    }
    await ingestedAsTheyHappened(inject('databaseUrl'), owner.environment_id);

    destination = await createScratchDatabase(inject('databaseUrl'), 'export_crash');
    await sql(destination, 'create table locked (uuid varchar(200), event varchar(200), properties jsonb, distinct_id varchar(200), timestamp timestamptz)');
    // Holds the table, so that the run's COPY waits in the middle of its transaction.
    const holder = new pg.Client({ connectionString: destination });
    await holder.connect();
    await holder.query('begin');
    await holder.query('lock table locked in access exclusive mode');
    const receiver = await holdingReceiver();
    try {
      const create = async (name: string, destinationInput: unknown) => {
        const made = await api(platform.url, 'POST', exportsPath(owner), { key: owner.personal_api_key, body: { name, interval: 'day', destination: destinationInput } });
        expect(made.status, made.text).toBe(201);
        const backfill = await api(platform.url, 'POST', exportsPath(owner, `${made.body.id}/backfills`), { key: owner.personal_api_key, body: { start_at: '2026-01-05T00:00:00Z', end_at: '2026-01-06T00:00:00Z' } });
        expect(backfill.status, backfill.text).toBe(201);
        return made.body.id as string;
      };
      const postgresExport = await create('to postgres', postgresDestination(destination, { table_name: 'locked' }));
      const httpExport = await create('to http', { type: 'HTTP', config: { url: receiver.url, token: 'secret' } });
      const runOf = async (id: string) => (await sql<Record<string, any>>(inject('databaseUrl'), 'select * from batch_exports.batch_export_runs where batch_export_id = $1', [id]))[0];

      await waitFor(async () => receiver.held.length > 0 && (await runOf(postgresExport))?.status === 'Running');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await killTree(platform.child.pid!);
      await platform.exited;
      receiver.drop();
      expect(receiver.accepted.map((request) => request.key)).toEqual([`${(await runOf(httpExport)).id}-0`]);
      await holder.query('commit');
      receiver.release();

      platform = await start();
      await waitFor(async () => (await runOf(postgresExport))?.status === 'Completed' && (await runOf(httpExport))?.status === 'Completed');

      const postgresRun = await runOf(postgresExport);
      expect(postgresRun).toMatchObject({ attempt: 2, records_completed: '12000' });
      const [copied] = await sql<{ rows: string; distinct: string }>(destination, 'select count(*) as rows, count(distinct uuid) as distinct from locked');
      expect(copied).toEqual({ rows: '12000', distinct: '12000' });

      const httpRun = await runOf(httpExport);
      expect(httpRun).toMatchObject({ attempt: 2, records_completed: '12000', cursor: { chunks: 3, records: 12000 } });
      expect(receiver.accepted.map((request) => request.key)).toEqual([0, 1, 2].map((chunk) => `${httpRun.id}-${chunk}`));
      const sent = receiver.accepted.flatMap((request) => request.body.trim().split('\n').map((line) => JSON.parse(line).uuid as string));
      expect(sent).toHaveLength(12_000);
      expect(new Set(sent)).toEqual(new Set(events.map((event) => event.uuid)));
    } finally {
      await holder.end().catch(() => undefined);
      await receiver.stop();
    }
  }, 240_000);
});
