import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_DIR, descendants, freePort, processTable } from './kit/process.js';

const GRACE_SECONDS = 5;
/** SHUTDOWN_TIMEOUT_SECONDS and a few seconds for the workers and the embedded PostgreSQL to stop. */
const BOUND_MS = (GRACE_SECONDS + 5) * 1000;

interface NpmStart {
  npm: ChildProcess;
  url: string;
  output: string[];
}

/**
 * `npm start` as Docker, systemd or a terminal run it, stopped by a signal to npm alone (or, for
 * Ctrl-C, to its process group): npm, its shell, the platform and the embedded PostgreSQL all end
 * within the graceful-shutdown bound, nothing answers on the port, and the data directory is free.
 */
describe('npm start and signals', () => {
  // A package whose `start` is the real one, run on the tests' build (see global-setup) as `dist/`.
  const pkg = mkdtempSync(join(tmpdir(), 'analytics-npm-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-signals-'));
  const started: NpmStart[] = [];

  beforeAll(() => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'signals-test', version: '0.0.0', private: true, type: 'module', scripts: { start: scripts.start } }));
    for (const [link, target] of [['dist', BUILD_DIR], ['node_modules', 'node_modules'], ['schema', 'schema']]) symlinkSync(resolve(target!), join(pkg, link!));
  });

  afterAll(() => {
    for (const { npm } of started) killGroup(npm, 'SIGKILL');
    rmSync(pkg, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const startNpm = async (): Promise<NpmStart> => {
    const port = await freePort();
    // A process group of its own, as a terminal gives it, so that Ctrl-C can be played.
    const npm = spawn('npm', ['start'], {
      cwd: pkg,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), npm_config_update_notifier: 'false', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_SECONDS: String(GRACE_SECONDS) },
    });
    const output: string[] = [];
    npm.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    npm.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const run = { npm, url: `http://127.0.0.1:${port}`, output };
    started.push(run);
    await untilHealthy(run);
    return run;
  };

  it.each([
    ['SIGTERM to npm (docker stop, systemctl stop)', 'SIGTERM', false],
    ['SIGINT to npm', 'SIGINT', false],
    ['Ctrl-C: SIGINT to the whole process group', 'SIGINT', true],
    ['a closed terminal: SIGHUP to the whole process group', 'SIGHUP', true],
  ] as const)('%s stops the whole tree within the bound', async (_name, signal, group) => {
    const run = await startNpm();
    const tree = descendants(run.npm.pid!);
    // npm (and a shell, if the script does not exec), the platform, the postmaster and its workers.
    expect(tree.length).toBeGreaterThanOrEqual(4);

    const signalledAt = performance.now();
    if (group) process.kill(-run.npm.pid!, signal);
    else run.npm.kill(signal);
    const left = await untilGone(tree, BOUND_MS);
    const tookMs = performance.now() - signalledAt;

    expect(left.map((pid) => `${pid} ${command(pid)}`)).toEqual([]);
    expect(tookMs).toBeLessThan(BOUND_MS);
    expect(await refuses(run.url)).toBe(true);
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    expect(existsSync(join(dataDir, 'platform.pid'))).toBe(false);
    // One graceful stop, to its end (the line before exit 0), however many ways the news came.
    const stops = logLines(run.output).filter((line) => line.msg === 'stopped');
    expect(stops).toHaveLength(1);
    process.stdout.write(`${_name}: the whole tree was gone ${Math.round(tookMs)} ms after the signal\n`);
  }, 180_000);
});

async function untilHealthy(run: NpmStart, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (run.npm.exitCode !== null) throw new Error(`npm start exited:\n${run.output.join('').slice(-3000)}`);
    const status = await fetch(`${run.url}/healthz`).then((response) => response.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`npm start did not become healthy:\n${run.output.join('').slice(-3000)}`);
}

/** The pids still running (a zombie has exited: only its parent's reaping is left) once all are gone or `ms` passed. */
async function untilGone(pids: number[], ms: number): Promise<number[]> {
  const deadline = performance.now() + ms;
  for (;;) {
    const table = processTable();
    const left = pids.filter((pid) => table.has(pid) && table.get(pid)!.state !== 'Z');
    if (left.length === 0 || performance.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function command(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

function refuses(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

function logLines(output: string[]): { msg?: string; level?: number }[] {
  return output
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; level?: number });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}
