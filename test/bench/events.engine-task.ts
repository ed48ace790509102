import { resolve } from 'node:path';
import { BenchChild } from './child.process.js';
import { say } from './bench.lifecycle.js';

/** A query as the platform printed it for ClickHouse, to run on the engine directly. */
export interface PrintedQuery {
  name: string;
  sql: string;
  params: Record<string, unknown>;
  settings: Record<string, number>;
  /** The answer's row limit: the printed SQL reads one row more, to tell whether there are more. */
  limit: number;
}

/**
 * What the engine process does with the chDB directory while no platform holds it (one process
 * can hold a chDB directory): events by SQL, the direct insert, the printed queries, a copy of
 * the events into another database.
 */
export type EngineTask =
  | { kind: 'load'; team: number; t0: number; from: number; to: number }
  | { kind: 'direct-insert'; team: number; t0: number; from: number; to: number; batchSize: number; senders: number }
  | { kind: 'queries'; queries: PrintedQuery[]; runs: number }
  | { kind: 'copy-events'; to: string }
  | { kind: 'count'; team: number };

/** What each task answers. */
export interface EngineAnswers {
  load: { ms: number };
  'direct-insert': { ms: number; rows: number };
  queries: { timings: Record<string, number[]>; rows: Record<string, number> };
  'copy-events': { ms: number; rows: number };
  count: { events: number };
}

/** The line the engine process ends its work with. */
export const RESULT_PREFIX = 'result ';
/** A line of progress the engine process prints, shown as it comes. */
export const PROGRESS_PREFIX = 'progress ';

/** Hours: loading ten million events is the longest task, and must not be cut short. */
const TASK_TIMEOUT_MS = 4 * 3_600_000;

/**
 * Runs a task in a process of its own on the chDB directory of `clickhouseUrl` (the platform on
 * it stopped first), showing its progress; answers what the task answered.
 */
export async function engineTask<Kind extends EngineTask['kind']>(root: string, clickhouseUrl: string, task: Extract<EngineTask, { kind: Kind }>): Promise<EngineAnswers[Kind]> {
  const script = resolve(root, 'dist/test/bench/events.engine.js');
  const child = BenchChild.start(`the engine (${task.kind})`, script, [JSON.stringify(task)], { cwd: root, env: { ...process.env, CLICKHOUSE_URL: clickhouseUrl } });
  try {
    return await child.waitFor((line) => {
      if (line.startsWith(PROGRESS_PREFIX)) say(`  ${line.slice(PROGRESS_PREFIX.length)}`);
      return line.startsWith(RESULT_PREFIX) ? (JSON.parse(line.slice(RESULT_PREFIX.length)) as EngineAnswers[Kind]) : undefined;
    }, TASK_TIMEOUT_MS);
  } finally {
    // It exits after its answer; stopping waits for that, so the directory is free for the platform.
    await child.stop();
  }
}
