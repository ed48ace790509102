import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { sql } from './kit/db.js';
import { generateEvents } from './kit/events.js';
import { BUILD_DIR, freePort, startPlatform, type Platform } from './kit/process.js';
import { seedTenant } from './kit/seed.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

/**
 * Crash safety: the platform (as `npm start` runs it) is killed with SIGKILL in the middle of a
 * large import and started again on the same database and port; the importer, retrying, goes on.
 * Every event must then be stored exactly once: none lost from a batch that got its 200, none
 * stored twice from a batch sent again because its answer never came.
 */
describe('a SIGKILL in the middle of an import', () => {
  const platforms: Platform[] = [];
  afterAll(() => {
    for (const platform of platforms) platform.child.kill('SIGKILL');
  });

  it('loses nothing and stores nothing twice', async () => {
    const port = await freePort();
    const env = {
      DATABASE_URL: inject('databaseUrl'),
      SECRET_KEY: TEST_SECRET_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-crash-')),
      PORT: String(port),
      LOG_LEVEL: 'warn',
    };
    const start = async () => {
      const platform = await startPlatform(env);
      platforms.push(platform);
      return platform;
    };
    let platform = await start();
    const owner = await seedTenant(inject('databaseUrl'), 'crash');

    const events = [...generateEvents(40_000, { seed: 23 })];
    const file = join(mkdtempSync(join(tmpdir(), 'analytics-crash-import-')), 'events.jsonl');
    writeFileSync(file, `${events.map((event) => JSON.stringify(event)).join('\n')}\n`);
    const importer = spawn(
      process.execPath,
      [`${BUILD_DIR}/router/process/cli/import/import.cli.js`, '--file', file, '--token', owner.project_api_key, '--host', platform.url, '--batch-size', '100', '--concurrency', '4', '--retry-for-seconds', '120'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    importer.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    importer.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const finished = new Promise<number | null>((resolve) => importer.once('exit', resolve));

    // Kill once part of the file is in, with batches in flight.
    const checkpoint = `${file}.checkpoint.json`;
    await waitFor(() => existsSync(checkpoint) && JSON.parse(readFileSync(checkpoint, 'utf8')).line >= 4000);
    platform.child.kill('SIGKILL');
    await platform.exited;
    const storedAtCrash = await count(owner.environment_id);
    expect(storedAtCrash).toBeLessThan(events.length);

    platform = await start();
    expect(await finished).toBe(0);
    expect(stderr).toContain('retrying:');
    expect(JSON.parse(stdout)).toMatchObject({ sent: events.length, rejected: 0 });

    const [totals] = await sql<{ stored: string; distinct: string; ids: string }>(
      inject('databaseUrl'),
      `select count(*) as stored, count(distinct uuid) as distinct,
              (select count(*) from ingestion.event_ids where environment_id = $1) as ids
         from ingestion.events where environment_id = $1`,
      [owner.environment_id],
    );
    expect(totals).toEqual({ stored: String(events.length), distinct: String(events.length), ids: String(events.length) });
    const stored = new Set((await sql<{ uuid: string }>(inject('databaseUrl'), 'select uuid from ingestion.events where environment_id = $1', [owner.environment_id])).map((row) => row.uuid));
    expect(events.filter((event) => !stored.has(event.uuid!))).toEqual([]);

    // The persons of the batches committed before the crash were queued with them: none is lost.
    await waitFor(async () => (await queued(owner.environment_id)) === 0, 30_000);
    const [persons] = await sql<{ count: string }>(inject('databaseUrl'), 'select count(distinct person_id) as count from ingestion.person_distinct_ids where environment_id = $1', [owner.environment_id]);
    expect(Number(persons!.count)).toBeGreaterThan(0);
    const distinctIds = new Set(events.map((event) => event.distinct_id));
    const [mapped] = await sql<{ count: string }>(inject('databaseUrl'), 'select count(*) from ingestion.person_distinct_ids where environment_id = $1 and distinct_id = any($2)', [owner.environment_id, [...distinctIds]]);
    expect(Number(mapped!.count)).toBe(distinctIds.size);
  });
});

async function count(environmentId: number): Promise<number> {
  const [row] = await sql<{ count: string }>(inject('databaseUrl'), 'select count(*) from ingestion.events where environment_id = $1', [environmentId]);
  return Number(row!.count);
}

async function queued(environmentId: number): Promise<number> {
  const [row] = await sql<{ count: string }>(inject('databaseUrl'), 'select count(*) from ingestion.profile_updates where environment_id = $1', [environmentId]);
  return Number(row!.count);
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
