import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { LOOPBACK_DESTINATIONS } from '../kit/process.js';
import { onExit, reportLoggedErrors, say } from './bench.lifecycle.js';
import { BenchApi } from './events.api.js';
import type { EventsBenchOptions } from './events.options.js';
import { countPostgres, loadPostgres } from './events.postgres.js';
import { BENCH_QUERIES, runsAt } from './events.queries.js';
import type { Outcome, QueryFigure, StoreFigures } from './events.report.js';
import { percentiles } from './load.runner.js';
import { bootstrap, platformEnv, startPlatform, type Bootstrapped } from './platform.fixture.js';

export const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** As the other ingestion benches send: batches of 1,000 from 4 connections at once. */
export const BATCH = { batchSize: 1000, senders: 4 };
/** The trend endpoint's live runs and materialized runs (as endpoints.bench.ts). */
const LIVE_RUNS = 5;
const MATERIALIZED_RUNS = 200;

/** What one run of the bench shares between the stores. */
export interface BenchRun {
  root: string;
  options: EventsBenchOptions;
  t0: number;
  /** The database the batch exports write into. */
  destinationUrl: string;
}

/** A platform's environment for the bench: a scratch database and DATA_DIR, exports to this machine allowed, queries given time at ten million events. */
export async function benchEnv(name: string, extra: NodeJS.ProcessEnv = {}): Promise<{ env: NodeJS.ProcessEnv; databaseUrl: string }> {
  const databaseUrl = await createScratchDatabase(SERVER_URL, `analytics_events_bench_${name}`);
  onExit(() => dropDatabase(databaseUrl));
  const dataDir = mkdtempSync(join(tmpdir(), `analytics-events-bench-${name}-`));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    ...platformEnv({ databaseUrl, secretKey: randomBytes(32).toString('base64url'), dataDir }),
    LOG_LEVEL: 'warn',
    DESTINATION_ALLOWED_HOSTS: LOOPBACK_DESTINATIONS,
    // PostgreSQL's unique-users query passes the default 30 s on a busy two-core machine at ten million events.
    ENDPOINT_QUERY_TIMEOUT_SECONDS: '300',
    ...extra,
  };
  return { env, databaseUrl };
}

/**
 * One warm-up run of each query, then `runs` runs of it: the median, and the rows and SQL of the
 * last run (a platform reads which materialized columns are filled in the background after its
 * first printing, so its first run of a fresh start reads the JSON).
 */
export async function timeQueries(api: BenchApi, runs: number): Promise<{ figures: Record<string, QueryFigure>; sql: Record<string, string> }> {
  const figures: Record<string, QueryFigure> = {};
  const sql: Record<string, string> = {};
  for (const query of BENCH_QUERIES) {
    let last = await api.runLive(query.name);
    const timings: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      last = await api.runLive(query.name);
      timings.push(last.ms);
    }
    sql[query.name] = last.sql;
    figures[query.name] = { p50: percentiles(timings).p50, rows: last.rows, readsColumns: /mat_/.test(last.sql) };
    say(`  ${query.name}: p50 ${percentiles(timings).p50.toFixed(1)} ms, ${last.rows} rows`);
  }
  return { figures, sql };
}

/** The batch export read rate and the materialized endpoint, each reported as failed rather than stopping the bench. */
export async function exportAndEndpoint(api: BenchApi, run: BenchRun, store: string): Promise<Pick<StoreFigures, 'exportRate' | 'endpoint'>> {
  const exportRate = await outcome(() => api.backfillYear(run.t0, run.destinationUrl, `events_${store}`));
  if (!('failed' in exportRate)) say(`  batch export: ${exportRate.records.toLocaleString('en')} rows in ${(exportRate.ms / 1000).toFixed(1)} s`);
  const endpoint = await outcome(() => api.materializedAgainstLive(LIVE_RUNS, MATERIALIZED_RUNS));
  if (!('failed' in endpoint)) say(`  trend endpoint: live p50 ${endpoint.liveMs.toFixed(1)} ms, materialized p50 ${endpoint.materializedMs.toFixed(2)} ms`);
  return { exportRate, endpoint };
}

export async function outcome<T>(measure: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return await measure();
  } catch (error) {
    say(`  failed: ${(error as Error).message}`);
    return { failed: (error as Error).message.split('\n')[0]!.slice(0, 200) };
  }
}

/** The events the size holds that `/batch/` sends: the first `batchEvents`, at most the size. */
export function batchPart(run: BenchRun, size: number): number {
  return Math.min(size, run.options.batchEvents);
}

/**
 * The platform on PostgreSQL (its default workers): at each size, the first events through
 * `/batch/` (timed), the rest by SQL, the four queries; at the largest, the export and the endpoint.
 */
export async function postgresRun(run: BenchRun): Promise<{ queries: Map<number, Record<string, QueryFigure>>; store: StoreFigures }> {
  say('\nPostgreSQL');
  const { env, databaseUrl } = await benchEnv('pg');
  const platform = await startPlatform(run.root, env);
  onExit(() => platform.child.stop());
  onExit(() => reportLoggedErrors([platform.child]));
  const account: Bootstrapped = await bootstrap(run.root, env, 'Events bench');
  const api = new BenchApi(platform, account);
  await api.createQueryEndpoints();
  const queries = new Map<number, Record<string, QueryFigure>>();
  let batch: StoreFigures['batch'] = null;
  let loaded = 0;
  for (const size of run.options.sizes) {
    const sent = batchPart(run, size);
    if (loaded < sent) {
      const ms = await api.sendEvents(run.t0, loaded, sent, BATCH);
      batch = { events: sent - loaded, ms };
      say(`  /batch/: ${(sent - loaded).toLocaleString('en')} events in ${(ms / 1000).toFixed(1)} s`);
      loaded = sent;
    }
    if (loaded < size) await loadPostgres(databaseUrl, account.environment_id, run.t0, loaded, size);
    loaded = size;
    say(`  ${(await countPostgres(databaseUrl, account.environment_id)).toLocaleString('en')} events stored; the queries at ${size.toLocaleString('en')}:`);
    queries.set(size, (await timeQueries(api, runsAt(size))).figures);
  }
  const extras = await exportAndEndpoint(api, run, 'postgres');
  // Stopped before ClickHouse's turn: its job queue's polls would count against the machine there.
  await platform.child.stop();
  return { queries, store: { batch, ...extras } };
}
