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

/**
 * CPU time (user + system, ms) a process and those it started (a cluster's workers) have used so
 * far; null once it has ended. Processes that ended before are not in it.
 */
export function treeCpuMs(pid: number): number | null {
  const stats = allStats();
  if (!stats.has(pid)) return null;
  return [...descendants(pid, stats)].reduce((sum, member) => sum + stats.get(member)!.cpuMs, 0);
}

/** A process and every process it started, however deep; empty once it has ended. */
export function processTree(pid: number): number[] {
  return [...descendants(pid, allStats())];
}

/** CPU time (ms) by part, from one moment to another. */
export interface CpuUse {
  /** The database under test: its postmaster and every process it started (backends, writers, autovacuum). */
  postgres: number;
  /** The platform's processes (the one the bench started and those it started), its PostgreSQL aside. */
  platform: number;
  /** This process: the load's senders and clients. */
  bench: number;
  /**
   * The machine busy (steal aside): the parts above, and what none of them holds: the kernel's own
   * threads (writing pages back to disk), other processes, and processes that ended meanwhile.
   */
  machine: number;
}

/** The processes to tell apart: the platform's first process, and the postmaster of its database. */
export interface CpuParts {
  platformPid: number;
  postmasterPid: number;
}

/** What each process has used so far (by pid and start time: a pid may be reused), and the machine's busy time. */
export interface CpuMark {
  postgres: Map<string, number>;
  platform: Map<string, number>;
  bench: number;
  machine: number;
}

export function cpuMark(parts: CpuParts): CpuMark {
  const stats = allStats();
  const postgres = descendants(parts.postmasterPid, stats);
  const platform = descendants(parts.platformPid, stats);
  const mark: CpuMark = { postgres: new Map(), platform: new Map(), bench: benchMs(), machine: machineBusyMs() };
  for (const [pid, stat] of stats) {
    if (postgres.has(pid)) mark.postgres.set(stat.key, stat.cpuMs);
    else if (platform.has(pid)) mark.platform.set(stat.key, stat.cpuMs);
  }
  return mark;
}

/**
 * CPU spent since `start`. A process that started meanwhile counts from nothing; one that ended
 * meanwhile is lost to its part (a pool's connections live through a phase) but not to `machine`.
 */
export function cpuSince(start: CpuMark, parts: CpuParts): CpuUse {
  const end = cpuMark(parts);
  const spent = (before: Map<string, number>, after: Map<string, number>) =>
    [...after].reduce((sum, [key, used]) => sum + used - (before.get(key) ?? 0), 0);
  return {
    postgres: spent(start.postgres, end.postgres),
    platform: spent(start.platform, end.platform),
    bench: end.bench - start.bench,
    machine: end.machine - start.machine,
  };
}

/** The pid of the postmaster whose backend `backendPid` is (`select pg_backend_pid()`), on this machine. */
export function postmasterOf(backendPid: number): number {
  const stat = processStat(backendPid);
  if (stat === null) throw new Error(`PostgreSQL's backend ${backendPid} is not a process of this machine`);
  return stat.parent;
}

interface ProcessStat {
  parent: number;
  cpuMs: number;
  /** pid and start time together. */
  key: string;
}

function processStat(pid: number): ProcessStat | null {
  const stat = readOr(`/proc/${pid}/stat`);
  if (stat === '') return null;
  // The fields after the command's name (which may hold spaces and parentheses): the state first,
  // then the parent (proc(5)'s field 4), ..., utime and stime (14, 15), ..., the start time (22).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { parent: Number(fields[1]), cpuMs: ticksToMs(Number(fields[11]) + Number(fields[12])), key: `${pid}@${fields[19]}` };
}

function allStats(): Map<number, ProcessStat> {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return new Map();
  }
  const stats = new Map<number, ProcessStat>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(Number(entry));
    if (stat !== null) stats.set(Number(entry), stat);
  }
  return stats;
}

/** `root` and every process it started, however deep, by their parents. */
function descendants(root: number, stats: Map<number, ProcessStat>): Set<number> {
  const found = new Set<number>(stats.has(root) ? [root] : []);
  let grew = found.size > 0;
  while (grew) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (!found.has(pid) && found.has(stat.parent)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return found;
}

/** user + nice + system + irq + softirq of /proc/stat's first line: guest time is within user, steal was never ours. */
function machineBusyMs(): number {
  const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = readOr('/proc/stat').split('\n')[0]!.trim().split(/\s+/).map(Number);
  return ticksToMs(user + nice + system + irq + softirq);
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
