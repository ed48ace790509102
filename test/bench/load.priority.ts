import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How far below the servers the bench's own process runs. */
export const CLIENT_NICENESS = 10;

/**
 * Lowers this process's priority (its main thread: the load, its timing and its checks). The
 * benches' clients stand in for clients on other machines; on a machine shared with the servers
 * they take only the CPU the servers and PostgreSQL leave, instead of taking it from them and
 * counting it against the system being measured. The servers this process starts afterwards run at
 * normal priority all the same ({@link atNormalPriority}).
 */
export function standInForOtherMachines(): void {
  setPriority(CLIENT_NICENESS);
}

/** Whether a server could not be put back to normal priority (see {@link atNormalPriority}). */
let serversNiced = false;

/** The line each report carries about it. */
export function priorityNote(): string {
  const niceness = getPriority();
  if (niceness === 0) return 'The load ran at normal priority, beside the servers.';
  if (serversNiced) return `The load ran at nice ${niceness}, and so did the servers (not permitted to put them back to 0).`;
  return `The load ran at nice ${niceness} (standing in for clients on other machines), the servers at 0.`;
}

/**
 * Puts every thread of a server the bench started back at normal priority: a child inherits its
 * parent's niceness, which is meant for the load only. Lowering a niceness needs privilege (root,
 * as on the benches' machines); without it the servers keep the bench's, and a warning says so.
 */
export function atNormalPriority(pid: number): void {
  if (getPriority() === 0) return;
  for (const thread of threadsOfTree(pid)) {
    try {
      setPriority(thread, 0);
    } catch (error) {
      // A thread that ended meanwhile has nothing to change.
      if ((error as { info?: { code?: string } }).info?.code === 'ESRCH') continue;
      if (!serversNiced) process.stderr.write(`warning: the servers run at the load's niceness (${(error as Error).message})\n`);
      serversNiced = true;
      return;
    }
  }
}

/**
 * The threads of a process and of the processes it started (a cluster's workers, an embedded
 * PostgreSQL), each with a priority of its own on Linux (read from `/proc`); else the process alone.
 */
function threadsOfTree(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [pid];
  }
  const children = threads.flatMap((thread) => readOr(`/proc/${pid}/task/${thread}/children`).split(' ').filter(Boolean));
  return [...threads.map(Number), ...children.flatMap((child) => threadsOfTree(Number(child)))];
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
