import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { ingestGenerated } from './bench.ingest.js';
import { onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { httpRequest } from './http.request.js';
import { percentiles } from './load.runner.js';
import { platformEnv, startPlatform, type Bootstrapped, type RunningPlatform } from './platform.fixture.js';
import { processTree } from './process.cpu.js';
import { codeVersion, load1, machine } from './results.report.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Events of the busy tenant: its slow query counts their cube. */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
/** The busy tenant's clients: as many as its run slots, so that it asks for all it may. */
const BUSY_CLIENTS = 10;
const ALONE_RUNS = 50;
const ATTACK_RUNS = 3;

/** The attack: a megabyte a row over a cross join, far past the bytes a result may hold. */
const ATTACK = "select repeat(repeat('x', 1000), 1000) as s from events a, events b limit 120";

type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; text: string }>;

/**
 * Issue 48's fairness case: tenant B keeps its run slots full of slow queries while tenant A sends
 * one trivial run after another, each distinct (no cache answers); A's latency alone and under B's
 * load, and B's throughput meanwhile. Then the platform's memory while the byte cap stops the
 * attack query. One worker, so that every query shares one process's slots. Printed, never asserted.
 */
async function main(): Promise<void> {
  const startLoad = load1();
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${codeVersion(ROOT)}`);
  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_fairness_bench');
  onExit(() => dropDatabase(databaseUrl));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-fairness-bench-'));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...platformEnv({ databaseUrl, secretKey: randomBytes(32).toString('base64url'), dataDir }), LOG_LEVEL: 'warn', WORKERS: '1' };
  const platform = await startPlatform(ROOT, env);
  onExit(() => platform.child.stop());
  onExit(() => reportLoggedErrors([platform.child]));
  const busy = await tenant(env, 'Fairness B');
  const quiet = await tenant(env, 'Fairness A');
  await ingestGenerated(platform, busy, EVENTS, Date.now());
  // A few events of A's own, for the attack query's cross join.
  await ingestGenerated(platform, quiet, 20, Date.now());
  const [busyApi, quietApi] = [endpointsApi(platform, busy), endpointsApi(platform, quiet)];
  await create(busyApi, 'slow', 'select count() from events a cross join events b cross join events c');
  await create(quietApi, 'trivial', 'select {variables.n} + 1', { a: { code_name: 'n', value: 0 } });
  await create(quietApi, 'attack', ATTACK);

  const slowMs = await timed(busyApi, 'slow', {});
  say(`B's slow query alone: ${slowMs.toFixed(0)} ms`);
  let left = ALONE_RUNS;
  const alone = await trivialRuns(quietApi, () => left-- > 0);
  say(`A alone: p50 ${percentiles(alone).p50.toFixed(1)} ms, p99 ${percentiles(alone).p99.toFixed(1)} ms (${alone.length} runs)`);
  const loaded = await underLoad(busyApi, quietApi);
  say(`A while B saturates: p50 ${percentiles(loaded.quiet).p50.toFixed(1)} ms, p99 ${percentiles(loaded.quiet).p99.toFixed(1)} ms (${loaded.quiet.length} runs)`);
  say(`B meanwhile: ${(loaded.busyDone / SECONDS).toFixed(2)} slow runs/s (${loaded.busyDone} in ${SECONDS} s, ${loaded.busyRefused} answered 429, ${loaded.busyFailed} failed otherwise)`);
  await attackMemory(platform, quietApi);
}

/** A user, an organization of its own and a project in it, from the bootstrap CLI. */
async function tenant(env: NodeJS.ProcessEnv, organization: string): Promise<Bootstrapped> {
  const cli = resolve(ROOT, 'dist/router/process/cli/bootstrap.cli.js');
  const email = `${organization.replace(/\W/g, '').toLowerCase()}@example.test`;
  const args = ['--email', email, '--password', 'correct horse battery staple', '--organization', organization, '--project', organization];
  const { stdout } = await promisify(execFile)(process.execPath, [cli, ...args], { cwd: ROOT, env });
  return JSON.parse(stdout) as Bootstrapped;
}

function endpointsApi(platform: RunningPlatform, account: Bootstrapped): Api {
  return (method, path, body) =>
    httpRequest(`${platform.url}/api/environments/${account.environment_id}/endpoints/${path}`, method, body === undefined ? undefined : Buffer.from(JSON.stringify(body)), {
      authorization: `Bearer ${account.personal_api_key}`,
    });
}

async function create(api: Api, name: string, query: string, variables?: Record<string, unknown>): Promise<void> {
  const created = await api('POST', '', { name, query: { kind: 'HogQLQuery', query, ...(variables ? { variables } : {}) } });
  if (created.status !== 201) throw new Error(`creating ${name}: ${created.status} ${created.text}`);
}

async function timed(api: Api, name: string, variables: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  const response = await api('POST', `${name}/run`, { variables, refresh: 'force' });
  if (response.status !== 200) throw new Error(`${name}: ${response.status} ${response.text.slice(0, 300)}`);
  return performance.now() - started;
}

let distinct = 0;

/** Trivial runs one after another, each with another value (so no cache answers), while `more()` says so. */
async function trivialRuns(api: Api, more: () => boolean): Promise<number[]> {
  const timings: number[] = [];
  while (more()) timings.push(await timed(api, 'trivial', { n: distinct++ }));
  return timings;
}

/** B's clients loop on the slow endpoint for SECONDS while A runs trivial ones. */
async function underLoad(busyApi: Api, quietApi: Api): Promise<{ quiet: number[]; busyDone: number; busyRefused: number; busyFailed: number }> {
  const deadline = performance.now() + SECONDS * 1000;
  const going = () => performance.now() < deadline;
  const counts = { busyDone: 0, busyRefused: 0, busyFailed: 0 };
  const clients = Array.from({ length: BUSY_CLIENTS }, async () => {
    while (going()) {
      const { status } = await busyApi('POST', 'slow/run', { refresh: 'force' });
      if (status === 200) counts.busyDone++;
      else if (status === 429) counts.busyRefused++;
      else counts.busyFailed++;
    }
  });
  // Let B fill its slots first.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const quiet = await trivialRuns(quietApi, going);
  await Promise.all(clients);
  return { quiet, ...counts };
}

/** The platform's memory (every process of it) before and at its peak while the attack query is refused. */
async function attackMemory(platform: RunningPlatform, api: Api): Promise<void> {
  const before = treeRssMb(platform.child.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssMb(platform.child.pid))), 20);
  const answers: string[] = [];
  try {
    for (let index = 0; index < ATTACK_RUNS; index++) {
      const response = await api('POST', 'attack/run', { refresh: 'force' });
      answers.push(`${response.status} ${(JSON.parse(response.text) as { code?: string }).code ?? ''}`);
    }
  } finally {
    clearInterval(sampler);
  }
  const health = await httpRequest(`${platform.url.replace(/\/$/, '')}/healthz`, 'GET', undefined);
  say(`attack query ×${ATTACK_RUNS}: answers ${answers.join(', ')}; platform RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB; /healthz ${health.status}`);
}

function treeRssMb(pid: number): number {
  let kilobytes = 0;
  for (const member of processTree(pid)) {
    try {
      kilobytes += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${member}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // It ended meanwhile.
    }
  }
  return kilobytes / 1024;
}

runBench(main);
