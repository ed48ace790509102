import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { Upload } from '@aws-sdk/lib-storage';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { postgresDestination, s3Destination, startS3, type S3Store } from '../kit/destinations.js';
import { ingestGenerated } from './bench.ingest.js';
import { onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { httpRequest } from './http.request.js';
import { LOOPBACK_DESTINATIONS } from '../kit/process.js';
import { bootstrap, platformEnv, startPlatform, type Bootstrapped, type RunningPlatform } from './platform.fixture.js';
import { codeVersion, load1, machine } from './results.report.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH_SIZE = 1000;
const SENDERS = 4;
/** The day every event is dated as ingested on: one run exports them all. */
const DAY = { start: '2026-01-05T00:00:00Z', end: '2026-01-06T00:00:00Z' };
/** What the platform's S3 uploads use (s3.files.ts): the direct upload is made alike. */
const PART_SIZE = 5 * 1024 * 1024;

interface Measured {
  name: string;
  records: number;
  bytes: number;
  exportMs: number;
  baselineMs: number;
}

/**
 * Issue 22's measures: EVENTS generated events, ingested through `/batch/` and dated as ingested on
 * one day, exported by one run each: to a table of another database of the same PostgreSQL (against
 * a raw COPY of the same columns between the two databases), and to an S3-protocol store (s3rver)
 * as gzipped JSON lines and as Parquet (against uploading the same bytes to the store directly, as
 * the platform uploads: multipart, 5 MiB parts, four at a time). Printed and appended to
 * RESULTS.md; never asserted.
 */
async function main(): Promise<void> {
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}`);
  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_exports_bench');
  onExit(() => dropDatabase(databaseUrl));
  const destination = await createScratchDatabase(SERVER_URL, 'analytics_exports_destination');
  onExit(() => dropDatabase(destination));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-exports-bench-'));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const store = await startS3('bench');
  onExit(() => store.stop());
  // The destinations are this machine's: loopback is allowed explicitly (the default refuses it).
  const env = { ...platformEnv({ databaseUrl, secretKey: randomBytes(32).toString('base64url'), dataDir }), LOG_LEVEL: 'warn', DESTINATION_ALLOWED_HOSTS: LOOPBACK_DESTINATIONS };
  const platform = await startPlatform(ROOT, env);
  onExit(() => platform.child.stop());
  onExit(() => reportLoggedErrors([platform.child]));
  const account = await bootstrap(ROOT, env, 'Exports bench');
  await ingestGenerated(platform, account, EVENTS, Date.now(), { batchSize: BATCH_SIZE, senders: SENDERS });
  await datedOneDay(databaseUrl, account.environment_id);

  const measured = [
    await toPostgres(platform, account, databaseUrl, destination),
    await toS3(platform, account, store, 'JSONLines, gzip', { file_format: 'JSONLines', compression: 'gzip' }),
    await toS3(platform, account, store, 'Parquet, snappy', { file_format: 'Parquet', compression: 'snappy' }),
  ];
  report(measured, startLoad, code);
}

/** Spreads the events' ingestion times over one day, by their time of day. */
async function datedOneDay(databaseUrl: string, environmentId: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`update ingestion.events set created_at = $2::timestamptz + (extract(epoch from timestamp)::bigint % 86400) * interval '1 second' where environment_id = $1`, [environmentId, DAY.start]);
    // The rewrite above is the bench's own, not ingestion's: the events are counted again, as
    // autovacuum would after it. The person tables are left as the import left them (an export
    // analyzes them itself when they changed that much).
    await client.query('vacuum analyze ingestion.events');
  } finally {
    await client.end();
  }
}

/** Makes an export with one backfill of the day and waits for its run: the run's figures and the time from the request to its end. */
async function exportDay(platform: RunningPlatform, account: Bootstrapped, name: string, destination: unknown): Promise<{ ms: number; records: number; bytes: number }> {
  const api = (method: string, path: string, body?: unknown) =>
    httpRequest(`${platform.url}/api/environments/${account.environment_id}/batch_exports/${path}`, method, body === undefined ? undefined : Buffer.from(JSON.stringify(body)), {
      authorization: `Bearer ${account.personal_api_key}`,
    });
  const created = await api('POST', '', { name, interval: 'day', destination });
  if (created.status !== 201) throw new Error(`creating ${name}: ${created.status} ${created.text}`);
  const { id } = JSON.parse(created.text) as { id: string };
  const started = performance.now();
  const backfill = await api('POST', `${id}/backfills/`, { start_at: DAY.start, end_at: DAY.end });
  if (backfill.status !== 201) throw new Error(`backfilling ${name}: ${backfill.status} ${backfill.text}`);
  for (;;) {
    const [run] = (JSON.parse((await api('GET', `${id}/runs/`)).text) as { results: { status: string; records_completed: number; bytes_exported: number; latest_error: string | null }[] }).results;
    if (run?.status === 'Completed') return { ms: performance.now() - started, records: run.records_completed, bytes: run.bytes_exported };
    if (run?.status === 'Failed' || run?.status === 'FailedRetryable') throw new Error(`${name}: ${run.latest_error}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The columns of PostHog's events table, read from the source as the export's default query reads them. */
const RAW_SELECT = `select uuid::text, event, properties, to_jsonb(coalesce(properties->>'$elements_chain', '')), properties->'$set', properties->'$set_once',
       distinct_id, environment_id, properties->>'$ip', null, timestamp
  from ingestion.events where environment_id = $ENV and created_at >= '${DAY.start}' and created_at < '${DAY.end}'`;

async function toPostgres(platform: RunningPlatform, account: Bootstrapped, databaseUrl: string, destination: string): Promise<Measured> {
  const exported = await exportDay(platform, account, 'to postgres', postgresDestination(destination, { table_name: 'events' }));
  say(`PostgreSQL: ${exported.records.toLocaleString('en')} rows in ${(exported.ms / 1000).toFixed(1)} s`);
  const source = new pg.Client({ connectionString: databaseUrl });
  const target = new pg.Client({ connectionString: destination });
  await Promise.all([source.connect(), target.connect()]);
  try {
    await target.query('create table raw_events (like events)');
    const started = performance.now();
    await pipeline(
      source.query(copyStreams.to(`copy (${RAW_SELECT.replace('$ENV', String(account.environment_id))}) to stdout`)),
      target.query(copyStreams.from('copy raw_events from stdin')),
    );
    const baselineMs = performance.now() - started;
    const [{ n }] = (await target.query<{ n: string }>('select count(*) as n from raw_events')).rows as [{ n: string }];
    say(`raw COPY between the databases: ${Number(n).toLocaleString('en')} rows in ${(baselineMs / 1000).toFixed(1)} s`);
    return { name: 'PostgreSQL table', ...exported, exportMs: exported.ms, baselineMs };
  } finally {
    await Promise.all([source.end(), target.end()]);
  }
}

async function toS3(platform: RunningPlatform, account: Bootstrapped, store: S3Store, name: string, config: Record<string, unknown>): Promise<Measured> {
  const prefix = name.replace(/\W+/g, '-').toLowerCase();
  const exported = await exportDay(platform, account, `to s3 ${name}`, s3Destination(store, { prefix, ...config }));
  const keys = await store.keys(`${prefix}/`);
  const files = await Promise.all(keys.map((key) => store.read(key)));
  const bytes = files.reduce((sum, file) => sum + file.length, 0);
  say(`S3 ${name}: ${exported.records.toLocaleString('en')} records, ${(bytes / 1e6).toFixed(1)} MB in ${(exported.ms / 1000).toFixed(1)} s`);
  const started = performance.now();
  for (const [index, file] of files.entries()) {
    await new Upload({ client: store.client, params: { Bucket: store.bucket, Key: `direct/${prefix}-${index}`, Body: file }, partSize: PART_SIZE, queueSize: 4 }).done();
  }
  const baselineMs = performance.now() - started;
  say(`the same bytes uploaded directly: ${(baselineMs / 1000).toFixed(2)} s`);
  return { name: `S3, ${name}`, records: exported.records, bytes, exportMs: exported.ms, baselineMs };
}

function report(measured: Measured[], startLoad: number, code: string): void {
  const rows = measured.map((entry) => {
    const rowsPerSecond = entry.records / (entry.exportMs / 1000);
    const megabytes = entry.bytes / 1e6;
    const ratio = entry.baselineMs / entry.exportMs;
    const rate = entry.name.startsWith('S3') ? `${(megabytes / (entry.exportMs / 1000)).toFixed(1)} MB/s vs ${(megabytes / (entry.baselineMs / 1000)).toFixed(1)} MB/s` : `${Math.round(rowsPerSecond).toLocaleString('en')} vs ${Math.round(entry.records / (entry.baselineMs / 1000)).toLocaleString('en')} rows/s`;
    return `| ${entry.name} | ${entry.records.toLocaleString('en')} | ${megabytes.toFixed(1)} MB | ${(entry.exportMs / 1000).toFixed(1)} s | ${(entry.baselineMs / 1000).toFixed(1)} s | ${rate} | ${ratio.toFixed(2)} |`;
  });
  const table = ['| destination | records | bytes | export run | baseline | rate (export vs baseline) | export ÷ baseline |', '|---|---:|---:|---:|---:|---:|---:|', ...rows].join('\n');
  say(`\n${table}`);
  appendFileSync(
    RESULTS_FILE,
    [
      '',
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — batch exports (batch-exports.bench.ts)`,
      '',
      `Machine: ${machine()}. Code: ${code}. Load average (1 min) at the start: ${startLoad.toFixed(2)}.`,
      `Run with \`npm run --silent build && node dist/test/bench/batch-exports.bench.js\`: ${EVENTS.toLocaleString('en')} generated events (test/kit/events.ts)`,
      'ingested through `/batch/` into the platform on the machine\'s PostgreSQL, dated as ingested on one day, then one backfill',
      'run of that day per destination, timed from the backfill request to the run\'s end (scheduling and the job queue included).',
      'Baselines: a raw `COPY (select …) TO STDOUT` piped into `COPY … FROM STDIN` of a table like the export\'s, between the same',
      'two databases; for S3 (s3rver on this machine, in the bench\'s process), the export\'s own files uploaded again as they are,',
      'multipart as the platform uploads.',
      '',
      table,
      '',
    ].join('\n'),
  );
}

runBench(main);
