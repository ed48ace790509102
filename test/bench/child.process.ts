import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { atNormalPriority } from './load.priority.js';

/** How many of a child's last output lines an error message quotes. */
const TAIL_LINES = 30;
const STOP_GRACE_MS = 10_000;

/** Every child still alive, so that an abrupt exit of the bench can still kill them. */
const alive = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/** A server process of the benchmark, with its output read line by line. */
export class BenchChild {
  private readonly tail: string[] = [];
  private readonly listeners = new Set<(line: string) => void>();
  private readonly exited: Promise<number | null>;
  /** Lines logged at pino's `error` level or above while the child ran. */
  readonly errorLines: string[] = [];

  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
  ) {
    alive.add(child);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        alive.delete(child);
        resolve(code);
      }),
    );
    // Both streams must be drained for the whole run, or a chatty child blocks on a full pipe.
    for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (line) => this.onLine(line));
  }

  /** The child's process id (its memory is read from /proc). */
  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Starts `node <script> <args>` in `cwd` with exactly `env`, at normal priority whatever the
   * bench's own (its threads once more when it is ready: those it made meanwhile).
   */
  static start(label: string, script: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): BenchChild {
    const child = spawn(process.execPath, [script, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) atNormalPriority(child.pid);
    return new BenchChild(label, child);
  }

  /**
   * Resolves with the first value `pick` returns for an output line; rejects when the child exits
   * first or nothing comes within `timeoutMs`, quoting the child's last lines.
   */
  waitFor<T>(pick: (line: string) => T | undefined, timeoutMs = 60_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        settle();
      };
      const listener = (line: string) => {
        const value = pick(line);
        if (value === undefined) return;
        atNormalPriority(this.pid);
        done(() => resolve(value));
      };
      const timer = setTimeout(() => done(() => reject(this.failure(`gave no sign of readiness within ${timeoutMs} ms`))), timeoutMs);
      this.listeners.add(listener);
      void this.exited.then((code) => done(() => reject(this.failure(`exited with code ${code} before it was ready`))));
    });
  }

  /** SIGTERM, then SIGKILL when the child has not exited after a grace period. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  failure(what: string): Error {
    return new Error(`${this.label} ${what}; its last output:\n${this.tail.join('\n')}`);
  }

  private onLine(line: string): void {
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    if (logLevel(line) >= 50) this.errorLines.push(line);
    for (const listener of this.listeners) listener(line);
  }
}

/** The pino record on a line, or undefined when the line is not one. */
export function logRecord(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function logLevel(line: string): number {
  const level = logRecord(line)?.level;
  return typeof level === 'number' ? level : 0;
}

/** A loopback port that was free a moment ago (the platform wants its PORT before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
