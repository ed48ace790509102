import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { percentiles } from './load.runner.js';
import { bootstrap, platformEnv, startPlatform } from './platform.fixture.js';
import { treeMemory, type TreeMemory } from './process.memory.js';
import { codeVersion, load1, machine } from './results.report.js';
import { soakMix, wheel, type MixEntry } from './soak.mix.js';
import { soakOptions, type SoakOptions } from './soak.options.js';
import { soakReport, type Minute } from './soak.report.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** A server to run on (a scratch database is made on it); unset, the platform runs its embedded PostgreSQL. */
const SERVER_URL = process.env.BENCH_DATABASE_URL;
/** The peak is measured after a warm-up at full load: a fresh database answers faster than a busy one. */
const WARMUP_SECONDS = 60;
const PEAK_SECONDS = 60;
const PEAK_CLIENTS = 32;
const SAMPLE_MS = 60_000;
/** Requests in flight past which the paced load stops adding (and counts what it could not send). */
const MAX_IN_FLIGHT = 256;

interface Window {
  sent: number;
  failed: number;
  timings: number[];
  failures: string[];
}
const emptyWindow = (): Window => ({ sent: 0, failed: 0, timings: [], failures: [] });

/**
 * Issue 16's soak: the platform (`node dist/router/process/main.js`, on its embedded PostgreSQL unless
 * BENCH_DATABASE_URL names a server) under a realistic mix (soak.mix.ts) and one graphql-ws
 * subscription. First its peak: 32 clients as fast as answers come, a minute, after a minute of
 * the same as a warm-up. Then a share of that rate (`--share`, 70%), paced, for `--minutes` (ten):
 * each minute's rate, failures, latency and the PSS of the platform's whole process tree, and that
 * PSS at the start, the middle and the end; the subscription must hear every change. Printed as a
 * section for RESULTS.md; never asserted.
 */
async function main(options: SoakOptions): Promise<void> {
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}; ${options.minutes} minutes at ${Math.round(options.share * 100)}% of the peak`);
  const databaseUrl = SERVER_URL ? await createScratchDatabase(SERVER_URL, 'analytics_soak') : '';
  if (databaseUrl) onExit(() => dropDatabase(databaseUrl));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-soak-'));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...platformEnv({ databaseUrl, secretKey: randomBytes(32).toString('base64url'), dataDir }), LOG_LEVEL: 'warn' };
  const platform = await startPlatform(ROOT, env);
  onExit(() => platform.child.stop());
  const account = await bootstrap(ROOT, env, 'Soak project');
  const mix = wheel(soakMix(platform.url, account));
  const heard = listen(platform.url, account);
  onExit(() => heard.close());
  await heard.ready;

  await closedLoop(mix, PEAK_CLIENTS, WARMUP_SECONDS);
  const peak = await closedLoop(mix, PEAK_CLIENTS, PEAK_SECONDS);
  const peakRate = peak.sent / PEAK_SECONDS;
  say(`peak: ${peakRate.toFixed(0)} requests/s with ${PEAK_CLIENTS} clients (${peak.failed} failed${peak.failures[0] ? `, e.g. ${peak.failures[0]}` : ''})`);
  const rate = peakRate * options.share;
  const writesBefore = heard.count();
  const soak = await pacedLoop(mix, rate, options.minutes * 60, platform.child.pid);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const lines = soakReport({
    machine: machine(),
    startLoad,
    code,
    database: databaseUrl ? 'the PostgreSQL at BENCH_DATABASE_URL, outside the tree' : 'its embedded PostgreSQL',
    peak: { rate: peakRate, clients: PEAK_CLIENTS, seconds: PEAK_SECONDS, warmupSeconds: WARMUP_SECONDS },
    rate,
    share: options.share,
    seconds: options.minutes * 60,
    maxInFlight: MAX_IN_FLIGHT,
    ...soak,
    heard: heard.count() - writesBefore,
    expectedEvents: 2 * soak.writes,
  });
  say(`\nFor test/bench/RESULTS.md:\n${lines.join('\n')}`);
  reportLoggedErrors([platform.child]);
}

/** `clients` loops sending the mix back to back for `seconds`: the platform's peak on it. */
async function closedLoop(mix: MixEntry[], clients: number, seconds: number): Promise<Window> {
  const window = emptyWindow();
  const until = Date.now() + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) await sendOne(mix, next++, window);
    }),
  );
  return window;
}

/**
 * The mix at a steady `rate` for `seconds` (open loop: requests start on schedule whether or not
 * earlier ones have been answered), sampled every minute.
 */
async function pacedLoop(mix: MixEntry[], rate: number, seconds: number, pid: number): Promise<{ minutes: Minute[]; writes: number; skipped: number; memory: { start: TreeMemory; middle: TreeMemory; end: TreeMemory } }> {
  const minutes: Minute[] = [];
  const start = treeMemory(pid);
  let middle: TreeMemory | undefined;
  const started = Date.now();
  let window = emptyWindow();
  let windowStarted = started;
  let inFlight = 0;
  let index = 0;
  let writes = 0;
  let skipped = 0;
  const pending = new Set<Promise<void>>();
  while (Date.now() - started < seconds * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    for (; index < due; index++) {
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped++;
        continue;
      }
      inFlight++;
      if (mix[(index * 37) % mix.length]!.name === 'REST create+delete') writes++;
      const request = sendOne(mix, index, window).finally(() => {
        inFlight--;
        pending.delete(request);
      });
      pending.add(request);
    }
    if (!middle && Date.now() - started >= (seconds * 1000) / 2) middle = treeMemory(pid);
    if (Date.now() - windowStarted >= SAMPLE_MS) {
      minutes.push(sample(window, (Date.now() - windowStarted) / 1000, pid, inFlight));
      say(describeMinute(minutes.length, minutes.at(-1)!));
      window = emptyWindow();
      windowStarted = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(pending);
  if (window.sent > 0) minutes.push(sample(window, (Date.now() - windowStarted) / 1000, pid, inFlight));
  const end = treeMemory(pid);
  return { minutes, writes, skipped, memory: { start, middle: middle ?? end, end } };
}

async function sendOne(mix: MixEntry[], index: number, window: Window): Promise<void> {
  const entry = mix[(index * 37) % mix.length]!;
  const started = performance.now();
  window.sent++;
  try {
    await entry.send(index);
    window.timings.push(performance.now() - started);
  } catch (error) {
    window.failed++;
    if (window.failures.length < 3) window.failures.push(`${entry.name}: ${(error as Error).message}`);
  }
}

function sample(window: Window, seconds: number, pid: number, inFlight: number): Minute {
  const { p50, p99 } = percentiles(window.timings);
  return { sent: window.sent, rate: window.sent / seconds, failed: window.failed, failures: window.failures, p50, p99, memory: treeMemory(pid), inFlight };
}

const describeMinute = (n: number, m: Minute) =>
  `minute ${n}: ${m.rate.toFixed(0)} requests/s, ${m.failed} failed${m.failures[0] ? ` (e.g. ${m.failures[0]})` : ''}, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, PSS ${m.memory.pssMb.toFixed(0)} MB in ${m.memory.processes} processes, ${m.inFlight} in flight`;

/** One graphql-ws subscription to the configs' changes, counting what it hears. */
function listen(url: string, account: { personal_api_key: string; environment_id: number }) {
  let count = 0;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const client = createClient({ url: `${url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${account.personal_api_key}` }, retryAttempts: 0, lazy: false, on: { connected: () => markReady() } });
  client.subscribe({ query: 'subscription ($p: Int!) { customer_profile_config_changed(project_id: $p) { action id } }', variables: { p: account.environment_id } }, { next: () => count++, error: () => undefined, complete: () => undefined });
  return { ready: ready.then(() => new Promise((resolve) => setTimeout(resolve, 500))), count: () => count, close: () => client.dispose() };
}

const options = soakOptions();
runBench(() => main(options));
