import { readFileSync } from 'node:fs';
import { processTree } from './process.cpu.js';

/**
 * Memory read from /proc (Linux), as PSS: each page shared by several processes (PostgreSQL's
 * shared buffers, a cluster's code) counted once, split among them, so that the processes of a
 * tree add up to what the tree holds; their RSS would count every shared page once per process.
 */

/** A process's PSS in kB (`/proc/<pid>/smaps_rollup`); 0 once it has ended. */
export function pssKb(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** What a process and every process it started (workers, an embedded PostgreSQL and its backends) hold together. */
export interface TreeMemory {
  pssMb: number;
  processes: number;
}

export function treeMemory(pid: number): TreeMemory {
  const tree = processTree(pid);
  return { pssMb: tree.reduce((sum, member) => sum + pssKb(member), 0) / 1024, processes: tree.length };
}
