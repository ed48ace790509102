import { appendFileSync } from 'node:fs';
import { priorityNote } from './load.priority.js';
import type { LoadFigures, LoadShape, LoadTarget } from './load.runner.js';
import { machine } from './results.report.js';
import { TIMED_REQUESTS } from './settings.targets.js';

/** The target for both endpoints, through REST. */
export const TARGET_P95_MS = 20;

export interface ShapedRun {
  target: LoadTarget;
  shape: LoadShape;
  run: LoadFigures;
}

const ms = (value: number) => value.toFixed(1);

/** Whether a run's p95 is under the target: printed, never a failure. */
export function meetsTarget(run: LoadFigures): boolean {
  return run.latency.p95 < TARGET_P95_MS;
}

export function settingsTable(measured: ShapedRun[]): string {
  const rows = measured.map(
    ({ target, shape, run }) =>
      `| ${target.label} | ${shape.connections} | ${(run.requests / run.seconds).toFixed(1)} | ${ms(run.latency.p50)} | ${ms(run.latency.p95)} | ${ms(run.latency.p99)} | ${run.requests} | ${run.non2xx} | ${meetsTarget(run) ? 'met' : 'not met'} |`,
  );
  return [
    `| case | connections | requests/s | p50 (ms) | p95 (ms) | p99 (ms) | requests | non-2xx | p95 < ${TARGET_P95_MS} ms |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

/** How a run was made, for the section's text. */
export interface RunNotes {
  seconds: number;
  minAnswers: number;
  /** Clients beyond this many do not multiply a run's requests. */
  cores: number;
  startLoad: number;
  code: string;
  seed: string;
  /** What was not a clean 2xx answer (the run then fails, but its figures are kept). */
  failures: string[];
}

/** Appends one dated section to the shared results file (the router benchmark's sections stay). */
export function appendSettingsResults(file: string, measured: ShapedRun[], run: RunNotes): void {
  const section = [
    '',
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — settings_as_of and project list (settings.bench.ts)`,
    '',
    `Machine: ${machine()}. Code: ${run.code}. Load average (1 min) at the start: ${run.startLoad.toFixed(2)}. ${priorityNote()}`,
    `Run with \`npm run --silent build && node dist/test/bench/settings.bench.js\`. ${run.seed}`,
    `Through REST on the platform (\`node dist/router/process/main.js\`, LOG_LEVEL=warn), autocannon in the bench process.`,
    `Per case and load, as many requests as one client makes in ${run.seconds} s (going by the median of ${TIMED_REQUESTS} timed requests; at least`,
    `${run.minAnswers}), times the clients up to the machine's ${run.cores} cores, after a warm-up of 3/${run.seconds} as many. Each connection is a client with its own key of the user (one connection: one`,
    `request at a time), and settings_as_of varies \`at\` within the second between the same two changes: the`,
    `router runs identical concurrent subgraph queries once, and caches each key's access for a second.`,
    `Percentiles are nearest-rank over the timing of every 2xx answer (autocannon's \`response\` event, fractional`,
    `ms; its histogram has no p95). Every answer was checked byte for byte against one verified before the load.`,
    '',
    settingsTable(measured),
    '',
    ...(run.failures.length > 0 ? ['Not every answer was a clean 2xx (the run failed):', '', ...run.failures.map((line) => `    ${line.slice(0, 400)}`), ''] : []),
  ];
  appendFileSync(file, section.join('\n'));
}
