import pg from 'pg';
import { say } from './bench.lifecycle.js';
import { earliestSecond, POSTGRES_EVENTS_INSERT } from './events.generator.js';

/** Rows one insert loads: progress shows often, and a statement's WAL stays moderate. */
const LOAD_CHUNK = 250_000;

/**
 * Events [from, to) of an environment straight into `ingestion.events` (and `event_ids`, as
 * `/batch/` stores them), with the monthly partitions they need made first the way ingestion
 * makes them (event-partition.repository.ts: a table of its own, then attached); then analyzed, as
 * autovacuum would after so many rows.
 */
export async function loadPostgres(databaseUrl: string, environmentId: number, t0: number, from: number, to: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await ensureMonths(client, earliestSecond(t0), t0);
    const started = performance.now();
    for (let start = from; start < to; start += LOAD_CHUNK) {
      const end = Math.min(to, start + LOAD_CHUNK);
      await client.query(POSTGRES_EVENTS_INSERT, [environmentId, t0, start, end]);
      const done = end - from;
      say(`  PostgreSQL: ${done.toLocaleString('en')} of ${(to - from).toLocaleString('en')} events by SQL (${Math.round(done / ((performance.now() - started) / 1000)).toLocaleString('en')} rows/s)`);
    }
    await client.query('vacuum analyze ingestion.events');
    await client.query('analyze ingestion.event_ids');
  } finally {
    await client.end();
  }
}

/** How many events the environment holds in PostgreSQL. */
export async function countPostgres(databaseUrl: string, environmentId: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('select count(*) as n from ingestion.events where environment_id = $1', [environmentId]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** The monthly partitions from `fromSecond` to `toSecond` that `ingestion.events` lacks. */
async function ensureMonths(client: pg.Client, fromSecond: number, toSecond: number): Promise<void> {
  const { rows } = await client.query<{ name: string }>(`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'ingestion.events'::regclass`);
  const existing = new Set(rows.map((row) => row.name));
  const first = new Date(fromSecond * 1000);
  for (let month = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), 1); month <= toSecond * 1000; month = nextMonth(month)) {
    const date = new Date(month);
    const name = `events_p${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
    if (existing.has(name)) continue;
    await client.query(`create table ingestion.${name} (like ingestion.events including defaults)`);
    await client.query(`alter table ingestion.events attach partition ingestion.${name} for values from ('${isoDay(month)} 00:00:00+00') to ('${isoDay(nextMonth(month))} 00:00:00+00')`);
  }
}

function nextMonth(month: number): number {
  const date = new Date(month);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

function isoDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}
