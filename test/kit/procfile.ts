import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { BUILD_DIR } from './process.js';

/** One line of the Procfile: a process's name and its shell command. */
export interface ProcfileEntry {
  name: string;
  command: string;
}

/** The `name: command` lines of a Procfile, as foreman and honcho read them (others are comments). */
export function readProcfile(path = 'Procfile'): ProcfileEntry[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => /^([A-Za-z0-9_-]+):\s*(.+)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ name: match[1]!, command: match[2]! }));
}

/** A Procfile process running, with what it printed so far. */
export interface ProcfileProcess {
  entry: ProcfileEntry;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
  /** SIGKILL (or another signal) to the process and everything it started. */
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Runs a Procfile line as a process manager would (through `sh -c`, in a process group of its
 * own), on the tests' build instead of `dist/` (see global-setup).
 */
export function startEntry(entry: ProcfileEntry, env: Record<string, string>): ProcfileProcess {
  const command = entry.command.replaceAll('dist/', `${BUILD_DIR}/`);
  const child = spawn('sh', ['-c', command], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    entry,
    child,
    output,
    exited,
    kill: (signal = 'SIGTERM') => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // Already gone.
      }
    },
  };
}

/** Polls a URL until it answers 200, or fails naming what the process printed. */
export async function untilAnswers(url: string, process: ProcfileProcess, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    if (process.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${process.entry.name} did not answer ${url}:\n${process.output.join('').slice(-3000)}`);
}

/** Whether something already listens on a loopback port. */
export function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
