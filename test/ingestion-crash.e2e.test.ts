import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ClickHouse } from '../subgraphs/shared/clickhouse/clickhouse.js';
import { sql } from './kit/db.js';
import { postgresEventRows } from './kit/events-store.js';
import { generateEvents } from './kit/events.js';
import { BUILD_DIR, freePort, startPlatform, type Platform } from './kit/process.js';
import { seedTenant } from './kit/seed.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

/** A stored row: which event, and when the platform wrote it (ms since the epoch). */
interface StoredRow {
  uuid: string;
  created_at: number;
}

/** Where the platform keeps its events, and how the test reads them while no platform runs. */
interface EventsStore {
  store: string;
  /** What the platform is started with to use it. */
  settings: Record<string, string>;
  /** Whether PostgreSQL's `ingestion.events` and `event_ids` hold the events. */
  inPostgres: boolean;
  /** Every stored row of the environment: an event stored twice is there twice. */
  rows(environmentId: number): Promise<StoredRow[]>;
}

const postgres: EventsStore = {
  store: 'PostgreSQL',
  settings: {},
  inPostgres: true,
  rows: async (environmentId) =>
    (await sql<{ uuid: string; created_at: string }>(inject('databaseUrl'), 'select uuid, floor(extract(epoch from created_at) * 1000) as created_at from ingestion.events where environment_id = $1', [environmentId])).map(
      (row) => ({ uuid: row.uuid, created_at: Number(row.created_at) }),
    ),
};

function chdb(): EventsStore {
  const url = `chdb:${mkdtempSync(join(tmpdir(), 'analytics-crash-chdb-'))}?database=crash`;
  return {
    store: 'ClickHouse (chDB)',
    // One process can hold a chDB directory.
    settings: { CLICKHOUSE_URL: url, WORKERS: '1' },
    inPostgres: false,
    // Every physical row (no FINAL), opened only while no platform holds the directory.
    rows: async (environmentId) => {
      const clickhouse = ClickHouse.open(url);
      try {
        const rows = await clickhouse.query<{ id: string; created: string }>(
          `SELECT toString(uuid) AS id, toUnixTimestamp64Milli(created_at) AS created FROM ${clickhouse.database}.events WHERE team_id = {team:Int64}`,
          { team: environmentId },
        );
        return rows.map((row) => ({ uuid: row.id, created_at: Number(row.created) }));
      } finally {
        await clickhouse.close();
      }
    },
  };
}

/**
 * Crash safety: the platform (as `npm start` runs it) is killed with SIGKILL in the middle of a
 * large import and started again on the same database and port; the importer, retrying, goes on.
 * Every event must then be stored exactly once: none lost from a batch that got its 200, none
 * stored twice from a batch sent again because its answer never came. On either events store.
 */
describe.each([postgres, chdb()])('a SIGKILL in the middle of an import, events on $store', (store) => {
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
      ...store.settings,
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
    const storedAtCrash = new Set((await store.rows(owner.environment_id)).map((row) => row.uuid));
    expect(storedAtCrash.size).toBeLessThan(events.length);

    const restartedAt = Date.now();
    platform = await start();
    expect(await finished).toBe(0);
    expect(stderr).toContain('retrying:');
    expect(JSON.parse(stdout)).toMatchObject({ sent: events.length, rejected: 0 });

    // The persons of the batches committed before the crash were queued with them: none is lost
    // (PostgreSQL keeps persons on either store).
    await waitFor(async () => (await queued(owner.environment_id)) === 0, 30_000);
    const [persons] = await sql<{ count: string }>(inject('databaseUrl'), 'select count(distinct person_id) as count from ingestion.person_distinct_ids where environment_id = $1', [owner.environment_id]);
    expect(Number(persons!.count)).toBeGreaterThan(0);
    const distinctIds = new Set(events.map((event) => event.distinct_id));
    const [mapped] = await sql<{ count: string }>(inject('databaseUrl'), 'select count(*) from ingestion.person_distinct_ids where environment_id = $1 and distinct_id = any($2)', [owner.environment_id, [...distinctIds]]);
    expect(Number(mapped!.count)).toBe(distinctIds.size);

    platform.child.kill('SIGTERM');
    expect(await platform.exited).toBe(0);
    const rows = await store.rows(owner.environment_id);
    const stored = new Set(rows.map((row) => row.uuid));
    expect({ rows: rows.length, distinct: stored.size }).toEqual({ rows: events.length, distinct: events.length });
    expect(events.filter((event) => !stored.has(event.uuid!))).toEqual([]);
    // ClickHouse's ReplacingMergeTree collapses the rows of one event once a background merge
    // meets them (merges run all through the import), so counting rows alone would miss an event
    // written twice early enough. The survivor is the newest write (`_timestamp`): an event stored
    // before the crash and written again by a retry would show a write after the restart.
    expect(rows.filter((row) => storedAtCrash.has(row.uuid) && row.created_at >= restartedAt)).toEqual([]);
    const inPostgres = store.inPostgres ? events.length : 0;
    expect(await postgresEventRows(inject('databaseUrl'), owner.environment_id)).toEqual({ events: inPostgres, ids: inPostgres });
  }, 180_000);
});

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
