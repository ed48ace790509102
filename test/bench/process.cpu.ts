import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time read from /proc (Linux). On a shared machine a rate moves by a fifth from one run to the
 * next; the CPU each part spent on the same work moves far less, and says where the time went.
 */

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system) the process has used, ms; null once it has ended. */
export function cpuMs(pid: number): number | null {
  const fields = statFields(pid);
  return fields === null ? null : ticksToMs(Number(fields[11]) + Number(fields[12]));
}

/** CPU time (ms) by part, from one moment to another. */
export interface CpuUse {
  /** Every process named `postgres`: the server's or the embedded one's backends and helpers. */
  postgres: number;
  /** The platform's processes (the one the bench started and those it started), PostgreSQL's aside. */
  platform: number;
  /** This process: the load's senders and clients. */
  bench: number;
  /** The whole machine busy, the kernel's own threads (writing pages back to disk) included. */
  machine: number;
}

/** What each process has used so far, by pid, and the machine's busy time; see {@link cpuSince}. */
export interface CpuMark {
  postgres: Map<number, number>;
  platform: Map<number, number>;
  bench: number;
  machine: number;
}

export function cpuMark(platformPid: number): CpuMark {
  const platform = new Set(processTree(platformPid));
  const marks: CpuMark = { postgres: new Map(), platform: new Map(), bench: benchMs(), machine: machineBusyMs() };
  for (const pid of [...platform, ...allPids()]) {
    const fields = statFields(pid);
    if (fields === null) continue;
    const used = ticksToMs(Number(fields[11]) + Number(fields[12]));
    if (commandName(pid) === 'postgres') marks.postgres.set(pid, used);
    else if (platform.has(pid)) marks.platform.set(pid, used);
  }
  return marks;
}

/**
 * CPU spent since `start`. A process that started meanwhile counts from nothing; one that ended
 * meanwhile is lost to its part (a pool's connections live through a phase) but not to `machine`.
 */
export function cpuSince(start: CpuMark, platformPid: number): CpuUse {
  const end = cpuMark(platformPid);
  const spent = (before: Map<number, number>, after: Map<number, number>) =>
    [...after].reduce((sum, [pid, used]) => sum + used - (before.get(pid) ?? 0), 0);
  return {
    postgres: spent(start.postgres, end.postgres),
    platform: spent(start.platform, end.platform),
    bench: end.bench - start.bench,
    machine: end.machine - start.machine,
  };
}

/** The process and every process it started, however deep (a cluster's workers, an embedded PostgreSQL). */
function processTree(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children = threads.flatMap((thread) => readOr(`/proc/${pid}/task/${thread}/children`).split(' ').filter(Boolean));
  return [pid, ...children.flatMap((child) => processTree(Number(child)))];
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** The fields of /proc/<pid>/stat after the command's name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | null {
  const stat = readOr(`/proc/${pid}/stat`);
  return stat === '' ? null : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function commandName(pid: number): string {
  return readOr(`/proc/${pid}/comm`).trim();
}

/** user + nice + system + irq + softirq + steal of /proc/stat's first line (guest time is within user). */
function machineBusyMs(): number {
  const [, user, nice, system, , , irq, softirq, steal] = readOr('/proc/stat').split('\n')[0]!.trim().split(/\s+/).map(Number);
  return ticksToMs(user! + nice! + system! + irq! + softirq! + (steal ?? 0));
}

function benchMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function ticksToMs(ticks: number): number {
  return (ticks * 1000) / ticksPerSecond;
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
