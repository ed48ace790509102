import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHogQLSelect } from '../../subgraphs/endpoints/hogql/parse/hogql.parser.js';
import { compileForCheck } from '../../subgraphs/endpoints/queries/query.runner.js';
import { prepareQuery } from '../../subgraphs/endpoints/queries/query.node.js';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { HOGQL_CASES } from '../kit/hogql-cases.js';
import { ingestGenerated } from './bench.ingest.js';
import { onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { httpRequest } from './http.request.js';
import { percentiles } from './load.runner.js';
import { bootstrap, platformEnv, startPlatform, type Bootstrapped, type RunningPlatform } from './platform.fixture.js';
import { codeVersion, load1, machine } from './results.report.js';

// Parses take turns by environment; the bench's all count against one.
const BENCH_ENVIRONMENT = 1;

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH_SIZE = 1000;
const SENDERS = 4;
const CLIENTS = 20;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const DIRECT_RUNS = 5;
const MATERIALIZED_RUNS = 200;
const COMPILE_ROUNDS = 200;
const NOW = Date.now();

/** PostHog's daily page-view trend by browser over the whole year of events. */
const TRENDS = {
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview' }],
  interval: 'day',
  dateRange: { date_from: '-400d' },
  breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
};

/** One query whose every run differs: a day of a year and an event name, as 20 dashboards would ask. */
const BY_DAY = {
  kind: 'HogQLQuery',
  query:
    "select properties.$browser as browser, count() as events, uniq(distinct_id) as users from events where event = {variables.event} and timestamp >= toDateTime({variables.day}) and timestamp < toDateTime({variables.day}) + INTERVAL 1 DAY group by browser order by events desc",
  variables: { a: { code_name: 'event', value: '$pageview' }, b: { code_name: 'day', value: '2026-01-01 00:00:00' } },
};

interface Figures {
  directMs: number[];
  materializedMs: number[];
  run: { p50: number; p95: number; queryP50: number; perSecond: number; requests: number; failures: number };
  compileMicros: { parse: number; compile: number };
}

/**
 * Issue 21's measures: a trends query over EVENTS ingested events run live and materialized; run
 * latency with CLIENTS concurrent clients each asking for a different day; parse and compile time
 * per query of the HogQL test table. Printed and appended to RESULTS.md; never asserted.
 */
async function main(): Promise<void> {
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}`);
  const compileMicros = await compileTimes();
  say(`parse ${compileMicros.parse.toFixed(0)} µs, compile ${compileMicros.compile.toFixed(0)} µs per query (${HOGQL_CASES.length} queries × ${COMPILE_ROUNDS})`);

  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_endpoints_bench');
  onExit(() => dropDatabase(databaseUrl));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-endpoints-bench-'));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  // As many run slots as clients: the bench measures runs, not the 429s of PostHog's concurrency limit.
  const env = { ...platformEnv({ databaseUrl, secretKey: randomBytes(32).toString('base64url'), dataDir }), LOG_LEVEL: 'warn', ENDPOINT_MAX_CONCURRENT_RUNS: String(CLIENTS) };
  const platform = await startPlatform(ROOT, env);
  onExit(() => platform.child.stop());
  onExit(() => reportLoggedErrors([platform.child]));
  const account = await bootstrap(ROOT, env, 'Endpoints bench');
  await ingestGenerated(platform, account, EVENTS, NOW, { batchSize: BATCH_SIZE, senders: SENDERS });

  const figures = { compileMicros, ...(await measure(platform, account)) };
  report(figures, startLoad, code);
}

async function compileTimes(): Promise<Figures['compileMicros']> {
  const queries = HOGQL_CASES.map((testCase) => ({ kind: 'HogQLQuery', query: testCase.query, variables: testCase.declared }));
  let parse = 0;
  let compile = 0;
  for (let round = 0; round < COMPILE_ROUNDS; round += 1) {
    for (const node of queries) {
      // PostHog's parser itself (runs answer a version's parsed query from memory after its first).
      const parsedAt = performance.now();
      await parseHogQLSelect(BENCH_ENVIRONMENT, node.query);
      parse += performance.now() - parsedAt;
      const prepared = await prepareQuery(BENCH_ENVIRONMENT, node);
      const compiledAt = performance.now();
      compileForCheck(prepared);
      compile += performance.now() - compiledAt;
    }
  }
  const count = COMPILE_ROUNDS * queries.length;
  return { parse: (parse / count) * 1000, compile: (compile / count) * 1000 };
}

async function measure(platform: RunningPlatform, account: Bootstrapped): Promise<Omit<Figures, 'compileMicros'>> {
  const api = (method: string, path: string, body?: unknown) =>
    httpRequest(`${platform.url}/api/environments/${account.environment_id}/endpoints/${path}`, method, body === undefined ? undefined : Buffer.from(JSON.stringify(body)), {
      authorization: `Bearer ${account.personal_api_key}`,
    });
  for (const [name, query, extra] of [
    ['trend_live', TRENDS, {}],
    ['trend_kept', TRENDS, { is_materialized: true, sync_frequency: '1hour' }],
    ['by_day', BY_DAY, {}],
  ] as const) {
    const created = await api('POST', '', { name, query, ...extra });
    if (created.status !== 201) throw new Error(`creating ${name}: ${created.status} ${created.text}`);
  }
  const waitedFrom = performance.now();
  for (;;) {
    const status = JSON.parse((await api('GET', 'trend_kept/materialization_status')).text) as { status: string; error: string | null };
    if (status.status === 'Completed') break;
    if (status.status === 'Failed') throw new Error(`materialization failed: ${status.error}`);
    if (performance.now() - waitedFrom > 600_000) throw new Error('materialization did not complete in 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  say(`materialized in about ${((performance.now() - waitedFrom) / 1000).toFixed(1)} s`);

  const timed = async (name: string, body: Record<string, unknown>) => {
    const started = performance.now();
    const response = await api('POST', `${name}/run`, body);
    if (response.status !== 200) throw new Error(`${name}: ${response.status} ${response.text.slice(0, 300)}`);
    return performance.now() - started;
  };
  const directMs: number[] = [];
  for (let index = 0; index < DIRECT_RUNS; index += 1) directMs.push(await timed('trend_live', { refresh: 'force' }));
  const materializedMs: number[] = [];
  for (let index = 0; index < MATERIALIZED_RUNS; index += 1) materializedMs.push(await timed('trend_kept', {}));
  say(`trend: live p50 ${percentiles(directMs).p50.toFixed(1)} ms, materialized p50 ${percentiles(materializedMs).p50.toFixed(2)} ms`);
  return { directMs, materializedMs, run: await concurrentRuns(api) };
}

/** CLIENTS loops for SECONDS, each run asking for another day (no two requests alike, so no cache answers). */
async function concurrentRuns(api: (method: string, path: string, body?: unknown) => Promise<{ status: number; text: string }>): Promise<Figures['run']> {
  const timings: number[] = [];
  const queryMs: number[] = [];
  let failures = 0;
  let counter = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const events = ['$pageview', '$autocapture', 'signed_up', 'purchase'];
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) {
        const index = counter++;
        const day = new Date(NOW - (3 + (index % 360)) * 86_400_000).toISOString().slice(0, 10);
        const started = performance.now();
        const response = await api('POST', 'by_day/run', { variables: { event: events[Math.floor(index / 360) % events.length], day: `${day} 00:00:00` }, refresh: 'force', debug: true });
        if (response.status === 200) {
          timings.push(performance.now() - started);
          queryMs.push((JSON.parse(response.text) as { timings: { t: number }[] }).timings[0]!.t * 1000);
        } else {
          failures += 1;
        }
      }
    }),
  );
  const { p50, p95 } = percentiles(timings);
  return { p50, p95, queryP50: percentiles(queryMs).p50, perSecond: timings.length / SECONDS, requests: timings.length, failures };
}

function report(figures: Figures, startLoad: number, code: string): void {
  const live = percentiles(figures.directMs).p50;
  const kept = percentiles(figures.materializedMs).p50;
  const lines = [
    `| trends query (day × browser, ${EVENTS.toLocaleString('en')} events), live run p50 | ${live.toFixed(1)} ms |`,
    `| the same, materialized, p50 | ${kept.toFixed(2)} ms |`,
    `| live ÷ materialized | ${(live / kept).toFixed(1)}× (goal ≥ 20×) |`,
    `| run with ${CLIENTS} clients, distinct days: p50 / p95 | ${figures.run.p50.toFixed(1)} / ${figures.run.p95.toFixed(1)} ms (${figures.run.perSecond.toFixed(0)} runs/s, ${figures.run.failures} failed; the query itself p50 ${figures.run.queryP50.toFixed(1)} ms) |`,
    `| parse / compile per query (${HOGQL_CASES.length} queries of the test table) | ${figures.compileMicros.parse.toFixed(0)} / ${figures.compileMicros.compile.toFixed(0)} µs |`,
  ];
  const table = ['| measure | figure |', '|---|---:|', ...lines].join('\n');
  say(`\n${table}`);
  appendFileSync(
    RESULTS_FILE,
    [
      '',
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — saved endpoints (endpoints.bench.ts)`,
      '',
      `Machine: ${machine()}. Code: ${code}. Load average (1 min) at the start: ${startLoad.toFixed(2)}.`,
      `Run with \`npm run --silent build && node dist/test/bench/endpoints.bench.js\`: ${EVENTS.toLocaleString('en')} generated events (test/kit/events.ts, one`,
      'year) ingested through `/batch/` into the platform on the machine\'s PostgreSQL; then a TrendsQuery (daily `$pageview`',
      `counts by \`$browser\` over the year) run ${DIRECT_RUNS} times live (\`refresh: force\`) and ${MATERIALIZED_RUNS} times from its`,
      `materialized result; then ${CLIENTS} clients for ${SECONDS} s running a HogQL endpoint whose every request asks for another`,
      'day and event (`refresh: force`, so no answer comes from the cache). Parse and compile times are in-process, over the',
      'queries of test/kit/hogql-cases.ts.',
      '',
      table,
      '',
    ].join('\n'),
  );
}

runBench(main);
