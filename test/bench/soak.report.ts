import type { TreeMemory } from './process.memory.js';

/** One minute of the paced load. */
export interface Minute {
  sent: number;
  rate: number;
  failed: number;
  failures: string[];
  p50: number;
  p99: number;
  /** The platform's whole process tree at the minute's end. */
  memory: TreeMemory;
  inFlight: number;
}

export interface SoakRun {
  machine: string;
  startLoad: number;
  code: string;
  /** Where the platform's database ran, as the report words it. */
  database: string;
  peak: { rate: number; clients: number; seconds: number; warmupSeconds: number };
  rate: number;
  share: number;
  seconds: number;
  maxInFlight: number;
  minutes: Minute[];
  memory: { start: TreeMemory; middle: TreeMemory; end: TreeMemory };
  skipped: number;
  heard: number;
  expectedEvents: number;
}

const mb = (memory: TreeMemory) => `${memory.pssMb.toFixed(0)} MB (${memory.processes} processes)`;

/** The soak as a section of RESULTS.md: the run, a row a minute, then memory and the subscription. */
export function soakReport(run: SoakRun): string[] {
  const { minutes, memory } = run;
  const failed = minutes.reduce((sum, m) => sum + m.failed, 0);
  const sent = minutes.reduce((sum, m) => sum + m.sent, 0);
  const change = memory.end.pssMb - memory.start.pssMb;
  return [
    '',
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — soak (soak.bench.ts)`,
    '',
    `Machine: ${run.machine}; load average at start ${run.startLoad.toFixed(2)}; code ${run.code}.`,
    `The platform (\`node dist/router/process/main.js\` on ${run.database}, in-process pub/sub) under the mix of soak.mix.ts (REST reads 25%, REST create+delete 10%, GraphQL across two subgraphs 35%, \`/batch/\` of 20 events 20%, event pages 10%) and one graphql-ws subscription.`,
    `Peak: ${run.peak.rate.toFixed(0)} requests/s (${run.peak.clients} clients, ${run.peak.seconds} s after ${run.peak.warmupSeconds} s of the same). Soak: ${run.rate.toFixed(0)} requests/s paced (${Math.round(run.share * 100)}% of peak) for ${run.seconds / 60} minutes.`,
    'Memory is the PSS of the platform\'s whole process tree (the processes it started, its PostgreSQL\'s when embedded), from /proc/<pid>/smaps_rollup: shared pages counted once.',
    '',
    '| minute | requests/s | failed | p50 ms | p99 ms | tree PSS MB |',
    '|---:|---:|---:|---:|---:|---:|',
    ...minutes.map((m, i) => `| ${i + 1} | ${m.rate.toFixed(0)} | ${m.failed} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.memory.pssMb.toFixed(0)} |`),
    '',
    `Failed: ${failed} of ${sent} requests; not sent for a backlog over ${run.maxInFlight}: ${run.skipped}. Subscription: heard ${run.heard} of ${run.expectedEvents} changes.`,
    `Tree PSS: ${mb(memory.start)} at the start, ${mb(memory.middle)} at the middle, ${mb(memory.end)} at the end (${change >= 0 ? '+' : ''}${change.toFixed(0)} MB).`,
    '',
  ];
}
