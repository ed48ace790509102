import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { priorityNote } from './load.priority.js';
import { CONNECTIONS, type LoadFigures, type LoadTarget } from './load.runner.js';

export interface Measured {
  target: LoadTarget;
  run: LoadFigures;
}

/** A ratio of two targets' throughput and the figure the issue asks of it. */
interface Ratio {
  name: string;
  value: number;
  goal: number;
}

const HEADER = `# Router benchmark results

Run with \`npm run bench\` (PostgreSQL at 127.0.0.1:5432 as \`postgres\`, or \`BENCH_DATABASE_URL\`).
It starts the platform (\`node dist/router/process/main.js\`) on a scratch database and \`@apollo/gateway\`
over the same running subgraphs, each in its own process, and drives each with autocannon
(${CONNECTIONS} connections) from the bench process: (a) our router, GraphQL; (b) Apollo Gateway,
the same GraphQL; (c) our router, the same records through REST. The query joins two subgraphs
(customer-profiles, and projects through the \`Project\` entity). REST records leave out
\`project\`, as PostHog's record has none, so (c) asks one subgraph less than (a).
Targets from the issue: a/b ≥ 3 and c/a ≥ 0.85. Each run appends a section below.

Reading the figures: \`@apollo/gateway\` sends the projects subgraph one representation per config
(20 copies of the same \`Project\`), where our router's planner sends it once. Before commit
319fd0f (batched reference resolution) the projects subgraph looked each representation up on its
own, which cost (b) twenty queries per request. Our router shares its process (and so a core)
with the subgraphs; the Apollo gateway has its own. Other work on the machine moves every figure:
each section records the commit and the load average at the start.
`;

/** a/b, c/a, d/e and f/d, from the runs in the order router, Apollo gateway, REST, the two with distinct variables, and REST with distinct page sizes. */
export function ratios([router, apollo, rest, distinctRouter, distinctApollo, distinctRest]: Measured[]): Ratio[] {
  return [
    { name: 'identical queries: router ÷ @apollo/gateway (a/b)', value: router!.run.requestsPerSecond / apollo!.run.requestsPerSecond, goal: 3 },
    { name: 'c/a (REST ÷ router)', value: rest!.run.requestsPerSecond / router!.run.requestsPerSecond, goal: 0.85 },
    ...(distinctRouter && distinctApollo
      ? [{ name: 'distinct queries: router ÷ @apollo/gateway (d/e)', value: distinctRouter.run.requestsPerSecond / distinctApollo.run.requestsPerSecond, goal: 3 }]
      : []),
    ...(distinctRest && distinctRouter ? [{ name: 'distinct requests: REST ÷ GraphQL (f/d)', value: distinctRest.run.requestsPerSecond / distinctRouter.run.requestsPerSecond, goal: 0.85 }] : []),
  ];
}

/** The 1-minute load average: other processes on the machine skew every figure. */
export function load1(): number {
  return loadavg()[0] ?? 0;
}

/** The commit measured, and whether the tree differed from it (this results file aside). */
export function codeVersion(root: string): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const dirty = git('status', '--porcelain', '--', '.', ':!test/bench/RESULTS.md') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'unknown (no git)';
  }
}

export function machine(): string {
  const cores = cpus();
  return `${cores[0]?.model ?? 'unknown CPU'}, ${cores.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
}

/** The figures as a Markdown table, which reads as well on a terminal as in RESULTS.md. */
export function table(measured: Measured[]): string {
  const rows = measured.map(
    ({ target, run }) =>
      `| ${target.key} | ${target.label} | ${run.requestsPerSecond.toFixed(0)} | ${run.p99Ms.toFixed(1)} | ${run.requests} | ${run.non2xx} | ${run.errors} |`,
  );
  return ['| | target | requests/s | p99 (ms) | requests | non-2xx | errors |', '|---|---|---:|---:|---:|---:|---:|', ...rows].join('\n');
}

export function ratioLines(measured: Measured[]): string[] {
  return ratios(measured).map(({ name, value, goal }) => {
    // The line the issues name, `distinct queries: router ÷ @apollo/gateway = X.XX`.
    const [label, pair] = name.split(' (');
    return `- ${label} = ${value.toFixed(2)} (${pair ? `${pair.replace(')', '')}; ` : ''}target ≥ ${goal}: ${value >= goal ? 'met' : 'not met'})`;
  });
}

/** Appends one dated section; writes the header first when the file is new. */
export function appendResults(file: string, measured: Measured[], run: { seconds: number; rounds: number; startLoad: number; code: string }): void {
  if (!existsSync(file)) writeFileSync(file, HEADER);
  const section = [
    '',
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Machine: ${machine()}. ${CONNECTIONS} connections, ${run.seconds} s per target after a warm-up, in ${run.rounds} turns (the targets take turns, so a drifting machine slows all alike; p99 is the highest turn's).`,
    `Code: ${run.code}. Load average (1 min) at the start: ${run.startLoad.toFixed(2)}. ${priorityNote()}`,
    '',
    table(measured),
    '',
    ...ratioLines(measured),
    '- (c) leaves out `project` (PostHog\'s record has none), so it asks the projects subgraph nothing.',
    ...(measured.length > 3 ? ['- (d) and (e) send the query with another page size on every request (the same 20 records): no two requests alike, so neither gateway answers one with another\'s work.'] : []),
    '',
  ];
  appendFileSync(file, section.join('\n'));
}
