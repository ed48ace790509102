import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { clickhouseFor } from '../../subgraphs/shared/clickhouse/clickhouse.registry.js';
import { sql } from './db.js';
import { api } from './http.js';
import type { Tenant } from './seed.js';
import type { Stack } from './stack.js';

export { postgresDestination, S3_KEYS, s3Destination, startS3, type S3Store } from './destinations.js';

/** `/api/environments/:id/batch_exports[/rest]/`. */
export const exportsPath = (owner: Pick<Tenant, 'environment_id'>, rest = '', prefix: 'environments' | 'projects' = 'environments') =>
  `/api/${prefix}/${owner.environment_id}/batch_exports/${rest ? `${rest}/` : ''}`;

/** A request an HTTP destination made. */
export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** An HTTP server that records what it is sent and answers `answer(request)` (200 by default). */
export async function startReceiver(answer: (request: Received, index: number) => number | Promise<number> = () => 200) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const entry = { headers: request.headers, body: Buffer.concat(chunks).toString() };
      const status = await answer(entry, received.length);
      if (status < 300) received.push(entry);
      response.writeHead(status, { 'content-type': 'application/json' }).end(status < 300 ? '{"status": "Ok"}' : JSON.stringify({ error: `refused with ${status}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/batch/`,
    received,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Creates an export through REST (201 expected) and answers its record. */
export async function createExport(stack: Stack, owner: Tenant, body: Record<string, unknown>, key = owner.personal_api_key): Promise<any> {
  const response = await api(stack.url, 'POST', exportsPath(owner), { key, body: { name: 'export', interval: 'day', ...body } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Starts a backfill through REST and works every run it makes (and anything else due). */
export async function backfill(stack: Stack, owner: Tenant, id: string, start_at: string, end_at: string): Promise<string> {
  const response = await api(stack.url, 'POST', exportsPath(owner, `${id}/backfills`), { key: owner.personal_api_key, body: { start_at, end_at } });
  expect(response.status, response.text).toBe(201);
  await drainExports(stack, owner);
  return response.body.backfill_id as string;
}

/**
 * Works the runs that are due now, in this process; with `owner`, then waits until no run of its
 * environment is waiting to start or running (another suite's process on the same database may
 * have taken one). Runs waiting for a retry are left to wait.
 */
export async function drainExports(stack: Stack, owner?: Pick<Tenant, 'environment_id'>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await stack.subgraphs.workers['batch-exports']!.drain();
    if (!owner) return;
    const [open] = await sql<{ n: number }>(stack.config.DATABASE_URL!, "select count(*)::int as n from batch_exports.batch_export_runs where environment_id = $1 and status in ('Starting', 'Running')", [owner.environment_id]);
    if (open!.n === 0) return;
    if (Date.now() > deadline) throw new Error(`${open!.n} runs still open after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** An export's runs, oldest interval first, through REST. */
export async function runsOf(stack: Stack, owner: Tenant, id: string): Promise<any[]> {
  const response = await api(stack.url, 'GET', `${exportsPath(owner, `${id}/runs`)}?ordering=data_interval_start`, { key: owner.personal_api_key });
  expect(response.status, response.text).toBe(200);
  return response.body.results;
}

/**
 * Dates the environment's events as ingested at their own timestamps (and its persons as changed
 * when they were made), as if they had arrived as they happened: exports read by ingestion time.
 */
export async function ingestedAsTheyHappened(databaseUrl: string, environmentId: number): Promise<void> {
  await ingestedAt(databaseUrl, environmentId, 'timestamp');
  await sql(databaseUrl, 'update ingestion.persons set updated_at = created_at where environment_id = $1', [environmentId]);
}

/**
 * Dates every event of the environment as ingested at `at` (or at its own timestamp), in
 * whichever store the installation keeps them: what a scheduled export reads them by.
 */
export async function ingestedAt(databaseUrl: string, environmentId: number, at: Date | 'timestamp'): Promise<void> {
  const clickhouse = clickhouseFor(databaseUrl);
  if (clickhouse) {
    const to = at === 'timestamp' ? 'timestamp' : "{at:DateTime64(6, 'UTC')}";
    const params = { team: environmentId, ...(at === 'timestamp' ? {} : { at: at.toISOString().replace('T', ' ').replace('Z', '') }) };
    await clickhouse.command(`ALTER TABLE ${clickhouse.database}.events UPDATE created_at = ${to} WHERE team_id = {team:Int64}`, params, { mutations_sync: '2' });
    return;
  }
  if (at === 'timestamp') await sql(databaseUrl, 'update ingestion.events set created_at = timestamp where environment_id = $1', [environmentId]);
  else await sql(databaseUrl, 'update ingestion.events set created_at = $2 where environment_id = $1', [environmentId, at]);
}

