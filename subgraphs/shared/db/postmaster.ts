import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';

/**
 * How a postmaster is stopped, in turn: a fast shutdown (SIGINT: clients disconnected, a
 * checkpoint, the data kept), then an immediate one (SIGQUIT: its backends too, recovery at the
 * next start), then SIGKILL; each waited for as long as it says.
 */
const STOPS: { signal: NodeJS.Signals; waitMs: number }[] = [
  { signal: 'SIGINT', waitMs: 15_000 },
  { signal: 'SIGQUIT', waitMs: 5_000 },
  { signal: 'SIGKILL', waitMs: 5_000 },
];

/**
 * Stops the PostgreSQL server that `directory`'s postmaster.pid names, if it is alive and is the
 * postmaster of that very directory (after a reboot the pid may be anything's: then nothing is
 * killed), and removes the stale pid file. Answers whether there was one to stop.
 */
export async function stopPostmasterOf(directory: string, log?: Logger): Promise<boolean> {
  const pidFile = join(directory, 'postmaster.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const running = Boolean(pid) && isAlive(pid) && isPostgresOf(pid, directory);
  if (running) {
    log?.warn({ postgres_pid: pid }, 'stopping an embedded PostgreSQL left behind by an earlier run');
    for (const { signal, waitMs } of STOPS) {
      if (!isAlive(pid)) break;
      process.kill(pid, signal);
      for (let waited = 0; isAlive(pid) && waited < waitMs; waited += 100) await sleep(100);
    }
  }
  rmSync(pidFile, { force: true });
  return running;
}

/**
 * Starts the watchdog of an embedded server (postmaster.watchdog.ts): a small process of its own
 * that stops `directory`'s postmaster once this process is gone, however it ended (SIGKILL, out
 * of memory), where no hook of this process runs. None when the watchdog is not built beside this
 * file (the sources run by a test runner): a later start still stops what is left.
 */
export function watchPostmaster(directory: string, lockFile: string, log: Logger): ChildProcess | undefined {
  const script = new URL('./postmaster.watchdog.js', import.meta.url);
  if (!existsSync(script)) return undefined;
  // A session of its own, so that a terminal's Ctrl-C or hang-up, meant for the platform, does not
  // end it first; its stdin is the pipe whose end tells it this process is gone.
  const watchdog = spawn(process.execPath, [fileURLToPath(script), directory, lockFile], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  watchdog.on('error', (error) => log.warn({ err: error }, 'the embedded PostgreSQL watchdog did not start'));
  watchdog.stdin?.on('error', () => undefined);
  // Neither keeps this process running.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return watchdog;
}

/**
 * The pid in `lockFile` (DATA_DIR's platform.pid) when it is a live process of this platform's
 * kind (a pid left by a platform before a reboot may be anything's by now), else null.
 */
export function liveHolder(lockFile: string): number | null {
  if (!existsSync(lockFile)) return null;
  const holder = Number(readFileSync(lockFile, 'utf8').trim());
  return holder && isAlive(holder) && runs(holder, basename(process.execPath)) ? holder : null;
}

/** Whether a pid is the PostgreSQL server of this data directory; without /proc to ask, it is not. */
function isPostgresOf(pid: number, directory: string): boolean {
  const commandLine = commandLineOf(pid);
  return Boolean(commandLine && /postgres$/.test(commandLine[0] ?? '') && commandLine.includes(directory));
}

/** Whether a pid runs `program`; without /proc to ask, it is taken to. */
function runs(pid: number, program: string): boolean {
  const commandLine = commandLineOf(pid);
  return !commandLine || basename(commandLine[0] ?? '') === program;
}

function commandLineOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

/** Whether a pid runs (a zombie, whose end its parent has not collected, has ended). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true;
  }
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
