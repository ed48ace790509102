import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Where the test run compiles the code that its child processes run (see global-setup);
 * TEST_BUILD_DIR names another, so that two runs in one checkout do not rebuild each other's.
 */
export const BUILD_DIR = process.env.TEST_BUILD_DIR || '.test-build';

export { freePort } from '../../subgraphs/shared/net.js';

/**
 * DESTINATION_ALLOWED_HOSTS of the test platforms: their destinations (s3rver, the machine's
 * PostgreSQL, local receivers) listen on loopback, which the default refuses. The suites of the
 * outbound policy set their own.
 */
export const LOOPBACK_DESTINATIONS = '127.0.0.1,::1,localhost';

export interface Platform {
  child: ChildProcess;
  url: string;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

/**
 * The built `router/process/main.js` as `npm start` runs it, with exactly the given environment (and
 * {@link LOOPBACK_DESTINATIONS} where it sets no DESTINATION_ALLOWED_HOSTS), and
 * `TEST_WORKERS` as its WORKERS where the test sets none: `TEST_WORKERS=1 npm test` runs every
 * suite that starts the platform in one process, as CI runs them with the default (two workers).
 * `cwd`: the directory it is started in (the repository's root unless given); `detached`: in a
 * process group of its own, as a shell starts a command (a signal to the group is then a terminal's).
 */
export async function startPlatform(env: Record<string, string>, timeoutMs = 90_000, options: { cwd?: string; detached?: boolean } = {}): Promise<Platform> {
  const workers: Record<string, string> = process.env.TEST_WORKERS ? { WORKERS: process.env.TEST_WORKERS } : {};
  const child = spawn(process.execPath, [resolve(BUILD_DIR, 'router/process/main.js')], { ...options, env: { PATH: process.env.PATH ?? '', ...workers, DESTINATION_ALLOWED_HOSTS: LOOPBACK_DESTINATIONS, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`platform did not start:\n${stderr.join('').slice(-3000)}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout.push(chunk.toString());
      // The public listener's line (the metrics listener, when set, is announced before it).
      const match = /Analytics platform listening on (http:\/\/\S+)/.exec(stdout.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`platform exited with ${code}:\n${stderr.join('').slice(-3000)}`));
    });
  });
  return { child, url, stdout, stderr, exited };
}

/** Runs a built CLI to completion. */
export function runCli(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The pid and the parent pid of every process, from /proc. */
export function processTable(): Map<number, { ppid: number; state: string }> {
  const table = new Map<number, { ppid: number; state: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { ppid: Number(ppid), state: state! });
    } catch {
      // Gone while listed.
    }
  }
  return table;
}

/** `root` and every process below it. */
export function descendants(root: number): number[] {
  const table = processTable();
  const found = [root];
  for (let index = 0; index < found.length; index++) {
    for (const [pid, { ppid }] of table) if (ppid === found[index]) found.push(pid);
  }
  return found;
}

/**
 * SIGKILL to a platform and every process below it (its workers, its embedded PostgreSQL), as a
 * machine or a container's end kills them: all at once, none with the time to notice the others.
 */
export async function killTree(root: number): Promise<void> {
  const tree = descendants(root);
  for (const pid of tree) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  // Gone once none runs (a zombie has exited: only its parent's reaping is left).
  for (let table = processTable(); tree.some((pid) => table.has(pid) && table.get(pid)!.state !== 'Z'); table = processTable()) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The processes whose command line names a path under `dir` (an embedded PostgreSQL's `-D`). */
export function processesUnder(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}
