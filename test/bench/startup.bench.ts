import { availableParallelism } from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onExit, runBench, say } from './bench.lifecycle.js';
import { freePort } from './child.process.js';
import { processTree } from './process.cpu.js';
import { pssKb } from './process.memory.js';
import { codeVersion, load1, machine } from './results.report.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** How long the platform idles before its memory is read. */
const IDLE_MS = 15_000;
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Round {
  firstStartMs: number;
  restartMs: number;
  nodeRssMb: number;
  postgresPssMb: number;
  processes: number;
}

/**
 * Issue 16's start-up measure: `npm start` as a new user runs it after `npm install` (the build
 * made by install; nothing configured: an embedded PostgreSQL in a fresh DATA_DIR), timed to the
 * first 200 from `/healthz`; after it has idled, the platform process's resident memory and the
 * embedded PostgreSQL's (proportional: shared buffers counted once); then a stop and a second
 * start on the same data. Printed and appended to RESULTS.md; never asserted.
 */
async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/router/process/main.js'))) throw new Error('no build: run npm install (or npm run build) first');
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}; WORKERS ${process.env.WORKERS || `default (${availableParallelism()})`}`);
  const rounds: Round[] = [];
  for (let index = 0; index < ROUNDS; index += 1) rounds.push(await round());
  report(rounds, startLoad, code);
}

async function round(): Promise<Round> {
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-startup-bench-'));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const first = await npmStart(dataDir, port);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const tree = processTree(first.child.pid!);
  const nodeRssMb = tree.filter((pid) => commandOf(pid).includes('router/process/main.js')).reduce((sum, pid) => sum + rssKb(pid), 0) / 1024;
  const postgres = tree.filter((pid) => commandOf(pid).startsWith('postgres'));
  const postgresPssMb = postgres.reduce((sum, pid) => sum + pssKb(pid), 0) / 1024;
  await stop(first.child);
  const second = await npmStart(dataDir, port);
  await stop(second.child);
  const result = { firstStartMs: first.ms, restartMs: second.ms, nodeRssMb, postgresPssMb, processes: postgres.length };
  say(`first start ${(first.ms / 1000).toFixed(2)} s, restart ${(second.ms / 1000).toFixed(2)} s; platform RSS ${nodeRssMb.toFixed(0)} MB, embedded PostgreSQL ${postgresPssMb.toFixed(0)} MB in ${postgres.length} processes`);
  return result;
}

/** `npm start` in its own process group, timed to the first healthy answer. */
async function npmStart(dataDir: string, port: number): Promise<{ child: ChildProcess; ms: number }> {
  const started = performance.now();
  const child = spawn(NPM, ['start', '--silent'], {
    cwd: ROOT,
    // WORKERS passes through, to measure one process against the default.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', ...(process.env.WORKERS ? { WORKERS: process.env.WORKERS } : {}) },
    stdio: 'ignore',
    detached: true,
  });
  onExit(() => signalGroup(child, 'SIGKILL'));
  const deadline = started + 120_000;
  for (;;) {
    const healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.ok, () => false);
    if (healthy) return { child, ms: performance.now() - started };
    if (performance.now() > deadline || child.exitCode !== null) throw new Error('npm start did not become healthy in 120 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  signalGroup(child, 'SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  signalGroup(child, 'SIGKILL');
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Gone already.
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim().replace(/^\S*\/(?=postgres)/, '');
  } catch {
    return '';
  }
}

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function report(rounds: Round[], startLoad: number, code: string): void {
  const rows = rounds.map((entry, index) => `| ${index + 1} | ${(entry.firstStartMs / 1000).toFixed(2)} s | ${(entry.restartMs / 1000).toFixed(2)} s | ${entry.nodeRssMb.toFixed(0)} MB | ${entry.postgresPssMb.toFixed(0)} MB (${entry.processes} processes) |`);
  const table = ['| round | first start to healthy | restart to healthy | platform RSS, idle | embedded PostgreSQL PSS, idle |', '|---:|---:|---:|---:|---:|', ...rows].join('\n');
  const summary = `Median first start ${(median(rounds.map((entry) => entry.firstStartMs)) / 1000).toFixed(2)} s (goal < 10 s); median platform RSS ${median(rounds.map((entry) => entry.nodeRssMb)).toFixed(0)} MB (goal < 400 MB).`;
  say(`\n${table}\n\n${summary}`);
  appendFileSync(
    RESULTS_FILE,
    [
      '',
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — start-up (startup.bench.ts)`,
      '',
      `Machine: ${machine()}. Code: ${code}. Load average (1 min) at the start: ${startLoad.toFixed(2)}. WORKERS: ${process.env.WORKERS || `default (${availableParallelism()})`}.`,
      'Run with `node dist/test/bench/startup.bench.js` after `npm install` (which builds): `npm start` with nothing configured',
      '(embedded PostgreSQL in a fresh DATA_DIR: initdb, migrations, the default account), timed from the command to the first',
      `200 from \`/healthz\`; memory read after ${IDLE_MS / 1000} s idle (the platform process's RSS; the embedded PostgreSQL's PSS,`,
      'which counts its shared memory once); then SIGTERM to the process group and a second start on the same data.',
      '',
      table,
      '',
      summary,
      '',
    ].join('\n'),
  );
}

runBench(main);
