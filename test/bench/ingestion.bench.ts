import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { generateEvents } from '../kit/events.js';
import { onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { copyChunk, copyRows, createCopyTable } from './ingestion.copy.js';
import { httpRequest } from './http.request.js';
import { priorityNote, standInForOtherMachines } from './load.priority.js';
import { percentiles } from './load.runner.js';
import { bootstrap, platformEnv, startPlatform, type RunningPlatform } from './platform.fixture.js';
import { cpuMark, cpuSince, postmasterOf, type CpuParts, type CpuUse } from './process.cpu.js';
import { codeVersion, load1, machine } from './results.report.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH_SIZE = 1000;
const SENDERS = 4;
/** /batch/ ÷ raw COPY on the server: issue 19's goal, and the ingestion issue's before it. */
const TARGET_RATIOS = [0.8, 0.5];
/** One instant for every generation pass, so that the COPY rows are the events sent. */
const NOW = Date.now();

interface Run {
  mode: string;
  batchPerSecond: number;
  copyPerSecond: number;
  latency: { p50: number; p99: number };
  stored: number;
  persons: number;
  /** CPU spent over each phase (ms), by part. */
  batchCpu: CpuUse;
  copyCpu: CpuUse;
}

/**
 * Issue 6's measure: EVENTS generated events through `/batch/` in batches of 1,000 from 4
 * concurrent senders (historical_migration, plain JSON), then the same rows by one raw COPY into
 * an identical table (`bench_copy.events`: same columns, indexes and partitions) in the same
 * database; on the machine's PostgreSQL and on the embedded one that `npm start` runs without
 * DATABASE_URL. Every figure is printed and appended to RESULTS.md.
 */
async function main(): Promise<void> {
  standInForOtherMachines();
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}`);
  // Made before any clock starts, and kept as Buffers: a million events do not fit a default heap as strings.
  const batches = [...inChunks(generateEvents(EVENTS, { now: NOW }), BATCH_SIZE)].map((batch) => Buffer.from(JSON.stringify(batch)));
  const bytes = batches.reduce((sum, body) => sum + body.length, 0);
  say(`${EVENTS} events in ${batches.length} batches, ${(bytes / 1e6).toFixed(0)} MB of JSON (${Math.round(bytes / EVENTS)} bytes an event)`);

  const runs = [await serverRun(batches)];
  if (process.env.BENCH_EMBEDDED !== '0') runs.push(await embeddedRun(batches));
  report(runs, startLoad, code, Math.round(bytes / EVENTS));
}

async function serverRun(batches: Buffer[]): Promise<Run> {
  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_ingest_bench');
  onExit(() => dropDatabase(databaseUrl));
  const dataDir = scratchDir();
  const env = { ...platformEnv({ databaseUrl, secretKey: randomBytes(32).toString('base64url'), dataDir }), LOG_LEVEL: 'warn' };
  const platform = await started(env);
  const account = await bootstrap(ROOT, env, 'Ingestion bench');
  const run = await measure('PostgreSQL server (DATABASE_URL)', platform, databaseUrl, account, batches);
  // Stopped before the embedded run: its queue's polls would count against the machine there.
  await platform.child.stop();
  return run;
}

/** `npm start` with nothing configured: the embedded PostgreSQL, and the account it bootstraps. */
async function embeddedRun(batches: Buffer[]): Promise<Run> {
  const dataDir = scratchDir();
  const env = { ...platformEnv({ databaseUrl: '', secretKey: randomBytes(32).toString('base64url'), dataDir }), DATABASE_URL: '', LOG_LEVEL: 'warn' };
  const platform = await started(env);
  const account = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { environment_id: number; project_api_key: string };
  const databaseUrl = readFileSync(join(dataDir, 'embedded-database-url'), 'utf8').trim();
  const run = await measure('embedded PostgreSQL (no DATABASE_URL)', platform, databaseUrl, account, batches);
  await platform.child.stop();
  return run;
}

async function started(env: NodeJS.ProcessEnv): Promise<RunningPlatform> {
  const platform = await startPlatform(ROOT, env);
  onExit(() => platform.child.stop());
  onExit(() => reportLoggedErrors([platform.child]));
  return platform;
}

async function measure(
  mode: string,
  platform: RunningPlatform,
  databaseUrl: string,
  account: { environment_id: number; project_api_key: string },
  batches: Buffer[],
): Promise<Run> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    say(`\n${mode}`);
    const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const parts: CpuParts = { platformPid: platform.child.pid, postmasterPid: postmasterOf(backend) };
    const head = Buffer.from(`{"api_key":${JSON.stringify(account.project_api_key)},"historical_migration":true,"batch":`);
    const bodies = batches.map((batch) => Buffer.concat([head, batch, Buffer.from('}')]));
    await client.query('checkpoint');
    const beforeBatch = cpuMark(parts);
    const sent = await send(`${platform.url}/batch/`, bodies);
    const batchCpu = cpuSince(beforeBatch, parts);
    const batchPerSecond = EVENTS / (sent.ms / 1000);
    say(`  /batch/: ${Math.round(batchPerSecond)} events/s (${(sent.ms / 1000).toFixed(1)} s; batch p50 ${sent.latency.p50.toFixed(0)} ms, p99 ${sent.latency.p99.toFixed(0)} ms)`);
    say(`    CPU an event: ${cpuLine(batchCpu)}`);
    const [{ stored, persons }] = (
      await client.query<{ stored: string; persons: string }>(
        `select (select count(*) from ingestion.events where environment_id = $1) as stored,
                (select count(*) from ingestion.persons where environment_id = $1) as persons`,
        [account.environment_id],
      )
    ).rows as [{ stored: string; persons: string }];
    say(`  stored ${stored} events, ${persons} persons`);

    await createCopyTable(client);
    const text = [...inChunks(generateEvents(EVENTS, { now: NOW }), 10_000)].map((rows) => copyChunk(rows, account.environment_id));
    await client.query('checkpoint');
    const beforeCopy = cpuMark(parts);
    const copyMs = await copyRows(client, text);
    const copyCpu = cpuSince(beforeCopy, parts);
    const copyPerSecond = EVENTS / (copyMs / 1000);
    say(`  raw COPY: ${Math.round(copyPerSecond)} rows/s (${(copyMs / 1000).toFixed(1)} s); /batch/ ÷ COPY = ${(batchPerSecond / copyPerSecond).toFixed(2)}`);
    say(`    CPU a row: ${cpuLine(copyCpu)}`);
    await client.query('drop schema bench_copy cascade');
    return { mode, batchPerSecond, copyPerSecond, latency: sent.latency, stored: Number(stored), persons: Number(persons), batchCpu, copyCpu };
  } finally {
    await client.end();
  }
}

/**
 * SENDERS loops taking the next body until none is left, each on a kept-alive connection of its
 * own; every answer must be 200. Plain `node:http`: the senders share the machine with the server,
 * and `fetch` spends about twice the CPU on a megabyte body.
 */
async function send(url: string, bodies: Buffer[]): Promise<{ ms: number; latency: { p50: number; p99: number } }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: SENDERS });
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const sender = async () => {
    while (next < bodies.length) {
      const index = next++;
      const sentAt = performance.now();
      const { status, text } = await httpRequest(url, 'POST', bodies[index]!, {}, agent);
      if (status !== 200) throw new Error(`batch ${index} answered ${status}: ${text.slice(0, 500)}`);
      latencies.push(performance.now() - sentAt);
      if ((index + 1) % Math.max(1, Math.floor(bodies.length / 10)) === 0) process.stderr.write(`  … ${index + 1}/${bodies.length} batches\n`);
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
  agent.destroy();
  const { p50, p99 } = percentiles(latencies);
  return { ms: performance.now() - started, latency: { p50, p99 } };
}

function report(runs: Run[], startLoad: number, code: string, eventBytes: number): void {
  const rows = runs.map(
    (run) =>
      `| ${run.mode} | ${Math.round(run.batchPerSecond).toLocaleString('en')} | ${Math.round(run.copyPerSecond).toLocaleString('en')} | ${(run.batchPerSecond / run.copyPerSecond).toFixed(2)} | ${run.latency.p50.toFixed(0)} / ${run.latency.p99.toFixed(0)} | ${run.stored.toLocaleString('en')} | ${run.persons.toLocaleString('en')} |`,
  );
  const table = ['| database | /batch/ events/s | raw COPY rows/s | ratio | batch p50 / p99 (ms) | events stored | persons |', '|---|---:|---:|---:|---:|---:|---:|', ...rows].join('\n');
  const cpuTable = [
    '| database | phase | PostgreSQL | platform | senders / COPY client | machine busy |',
    '|---|---|---:|---:|---:|---:|',
    ...runs.flatMap((run) => [cpuRow(run.mode, '/batch/', run.batchCpu), cpuRow(run.mode, 'raw COPY', run.copyCpu)]),
  ].join('\n');
  const ratio = runs[0]!.batchPerSecond / runs[0]!.copyPerSecond;
  const targets = `Targets, /batch/ against raw COPY on the server: ${TARGET_RATIOS.map((target) => `at least ${target * 100}%: ${ratio >= target ? 'met' : 'not met'}`).join('; ')}.`;
  say(`\n${table}\n\n${cpuTable}\n\n${targets}`);
  appendFileSync(
    RESULTS_FILE,
    [
      '',
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — historical ingestion (ingestion.bench.ts)`,
      '',
      `Machine: ${machine()}. Code: ${code}. Load average (1 min) at the start: ${startLoad.toFixed(2)}.`,
      `Run with \`npm run --silent build && node dist/test/bench/ingestion.bench.js\`. ${EVENTS.toLocaleString('en')} generated events`,
      `(test/kit/events.ts: page views and custom events with the properties posthog-js sends, ${eventBytes} bytes of JSON an event,`,
      `2% \`$identify\`, 0.5% \`$groupidentify\`, 20,000 users, UUIDv7 ids, one year ending 3 days ago), ${BATCH_SIZE} per batch, plain JSON`,
      `with \`historical_migration: true\`, from ${SENDERS} concurrent senders (node:http, kept-alive connections) through`,
      '`node dist/router/process/main.js`; then the same rows by one `COPY … FROM STDIN` into `bench_copy.events` (`like ingestion.events`',
      'with its indexes and the same monthly partitions) in the same database. Every /batch/ answer was 200 and every event was',
      `stored once (counted afterwards). The senders and the COPY client run in the bench process. ${priorityNote()}`,
      '',
      table,
      '',
      "CPU an event (µs) over each phase, read from /proc: the database's postmaster and the processes it started; the",
      "platform's processes; the bench's own (its senders, then its COPY client); the machine busy in all, steal aside (with",
      'what none of those holds: the kernel writing pages back, other processes, processes that ended within the phase).',
      'The raw COPY runs while the platform idles.',
      '',
      cpuTable,
      '',
      targets,
      '',
    ].join('\n'),
  );
}

function cpuLine(cpu: CpuUse): string {
  const each = perEvent(cpu);
  return `PostgreSQL ${each.postgres} µs, platform ${each.platform} µs, bench ${each.bench} µs; machine busy ${each.machine} µs`;
}

function cpuRow(mode: string, phase: string, cpu: CpuUse): string {
  const each = perEvent(cpu);
  return `| ${mode} | ${phase} | ${each.postgres} | ${each.platform} | ${each.bench} | ${each.machine} |`;
}

function perEvent(cpu: CpuUse): Record<keyof CpuUse, string> {
  const each = (ms: number) => ((ms * 1000) / EVENTS).toFixed(1);
  return { postgres: each(cpu.postgres), platform: each(cpu.platform), bench: each(cpu.bench), machine: each(cpu.machine) };
}

function* inChunks<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let chunk: T[] = [];
  for (const item of items) {
    chunk.push(item);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'analytics-ingest-bench-'));
  onExit(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

runBench(main);
