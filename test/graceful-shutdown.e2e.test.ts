import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { subgraphs } from '../subgraphs/index.js';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { migrationLockId } from '../subgraphs/shared/db/migrate.js';
import { sql } from './kit/db.js';
import { anEvent } from './kit/ingest.js';
import { BUILD_DIR, freePort, startPlatform } from './kit/process.js';
import { seedTenant } from './kit/seed.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

interface Sent {
  kind: 'batch' | 'config';
  startedAt: number;
  endedAt: number;
  ok: boolean;
  /** The event uuids of a batch, or the id of a config made. */
  ids: string[];
}

/**
 * SIGTERM under load (as Docker or systemd stop the platform): requests in progress, ingestion
 * batches included, are answered before the process exits; every request that got a 2xx left its
 * data in the database; websocket subscribers are told the server is going away (1001).
 */
/** A platform's settings here: the tests' database and key, a data directory and port of its own, and `extra`. */
async function settings(extra: Record<string, string>): Promise<Record<string, string>> {
  return {
    DATABASE_URL: inject('databaseUrl'),
    SECRET_KEY: TEST_SECRET_KEY,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-shutdown-')),
    PORT: String(await freePort()),
    ...extra,
  };
}

describe('SIGTERM under load', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  it('finishes what it acknowledged, closes websockets with 1001, and exits 0 within the bound', async () => {
    const platform = await startPlatform(await settings({ LOG_LEVEL: 'warn', SHUTDOWN_TIMEOUT_SECONDS: '10' }));
    children.push(platform.child);
    const owner = await seedTenant(inject('databaseUrl'), 'shutdown');

    let closeCode: number | undefined;
    const client = createClient({
      url: `${platform.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${owner.personal_api_key}` },
      retryAttempts: 0,
      on: { closed: (event) => void (closeCode = (event as { code: number }).code) },
    });
    client.subscribe({ query: 'subscription ($p: Int!) { customer_profile_config_changed(project_id: $p) { sequence } }', variables: { p: owner.environment_id } }, { next: () => undefined, error: () => undefined, complete: () => undefined });

    const sent: Sent[] = [];
    let stopping = false;
    const send = async (kind: Sent['kind']): Promise<boolean> => {
      const startedAt = performance.now();
      const events = kind === 'batch' ? Array.from({ length: 2000 }, () => anEvent({ properties: { padding: 'x'.repeat(300) } })) : [];
      const request =
        kind === 'batch'
          ? fetch(`${platform.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: owner.project_api_key, historical_migration: true, batch: events }) })
          : fetch(`${platform.url}/api/environments/${owner.environment_id}/customer_profile_configs/`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.personal_api_key}` },
              body: JSON.stringify({ scope: 'person', content: { marker: 'shutdown' } }),
            });
      try {
        const response = await request;
        const body = (await response.json()) as { id?: string };
        const ok = response.status >= 200 && response.status < 300;
        sent.push({ kind, startedAt, endedAt: performance.now(), ok, ids: kind === 'batch' ? events.map((event) => String(event.uuid)) : [String(body.id)] });
        return true;
      } catch {
        // Refused or cut: not acknowledged, so the client would send it again.
        sent.push({ kind, startedAt, endedAt: performance.now(), ok: false, ids: [] });
        return false;
      }
    };
    const loops = Array.from({ length: 4 }, async (_, index) => {
      while (!stopping && (await send(index % 2 === 0 ? 'batch' : 'config')));
    });

    await new Promise((resolve) => setTimeout(resolve, 1500));
    const signalledAt = performance.now();
    platform.child.kill('SIGTERM');
    const code = await platform.exited;
    const exitedAt = performance.now();
    stopping = true;
    await Promise.all(loops);
    await client.dispose();

    expect(code).toBe(0);
    expect(exitedAt - signalledAt).toBeLessThan(20_000);
    expect(closeCode).toBe(1001);
    const acknowledged = sent.filter((request) => request.ok);
    expect(acknowledged.filter((request) => request.kind === 'batch').length).toBeGreaterThan(0);
    // Requests under way when the signal came were answered, not cut off.
    expect(acknowledged.some((request) => request.startedAt < signalledAt && request.endedAt > signalledAt)).toBe(true);
    const events = acknowledged.filter((request) => request.kind === 'batch').flatMap((request) => request.ids);
    const stored = await sql<{ n: string }>(inject('databaseUrl'), 'select count(*) as n from ingestion.events where environment_id = $1 and uuid = any($2::uuid[])', [owner.environment_id, events]);
    expect(Number(stored[0]!.n)).toBe(events.length);
    const configs = acknowledged.filter((request) => request.kind === 'config').flatMap((request) => request.ids);
    const made = await sql<{ n: string }>(inject('databaseUrl'), 'select count(*) as n from customer_profiles.customer_profile_configs where id = any($1::uuid[])', [configs]);
    expect(Number(made[0]!.n)).toBe(configs.length);
  }, 120_000);

  it('answers a request begun before the signal though its key is looked up after it (the subgraphs serve until the router is done)', async () => {
    // As deployed: Apollo Server stops itself on SIGTERM unless told not to, but not under NODE_ENV=test.
    const platform = await startPlatform(await settings({ LOG_LEVEL: 'warn', WORKERS: '1', NODE_ENV: 'production' }));
    children.push(platform.child);
    const owner = await seedTenant(inject('databaseUrl'), 'shutdownlookup');
    const { port } = new URL(platform.url);
    const socket = connect(Number(port), '127.0.0.1');
    const answer = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    await new Promise((resolve) => socket.once('connect', resolve));
    // The request has begun (its line is in), its key not yet sent: nothing is looked up before the signal.
    socket.write('GET /api/users/@me/ HTTP/1.1\r\nHost: localhost\r\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    platform.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    socket.write(`Authorization: Bearer ${owner.personal_api_key}\r\nConnection: close\r\n\r\n`);
    const text = await answer;
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(text).toContain(owner.email);
    expect(await platform.exited).toBe(0);
  }, 60_000);

  it('stops gracefully on a signal that came while its subgraphs were starting, once they have started', async () => {
    const env = { PATH: process.env.PATH ?? '', ...(await settings({ LOG_LEVEL: 'info', WORKERS: '1' })) };
    const child = spawn(process.execPath, [`${BUILD_DIR}/router/process/main.js`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Its log records go to stderr; stdout has the line for people.
    let output = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('"msg":"subgraph listening"')) resolve();
      });
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string });
    expect(lines.map((line) => line.msg)).toContain('platform listening');
    expect(lines.at(-1)?.msg).toBe('stopped');
  }, 60_000);

  it("ends a start that waits for ever (a migration lock never released) SHUTDOWN_TIMEOUT_SECONDS after the signal, with the signal's exit status", async () => {
    const databaseUrl = await createScratchDatabase(inject('databaseUrl'), 'analytics_hung');
    const holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    try {
      for (const subgraph of subgraphs) await holder.query('select pg_advisory_lock($1)', [migrationLockId(subgraph.name)]);
      const env = { PATH: process.env.PATH ?? '', ...(await settings({ DATABASE_URL: databaseUrl, WORKERS: '1', SHUTDOWN_TIMEOUT_SECONDS: '1' })) };
      const child = spawn(process.execPath, [`${BUILD_DIR}/router/process/main.js`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // Once its migration waits on the lock, the platform has started listening for signals.
      const waiting = async () => Number((await holder.query("select count(*) from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())")).rows[0].count) > 0;
      while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(stderr).toContain('SIGTERM during start-up: stopped before start-up finished');
    } finally {
      await holder.end();
      await dropDatabase(databaseUrl);
    }
  }, 60_000);
});
