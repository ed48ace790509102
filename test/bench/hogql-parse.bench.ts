import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHogQLSelect } from '../../subgraphs/endpoints/hogql/parse/hogql.parser.js';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { httpRequest } from './http.request.js';
import { percentiles } from './load.runner.js';
import { bootstrap, platformEnv, startPlatform, type Bootstrapped, type RunningPlatform } from './platform.fixture.js';
import { codeVersion, load1, machine } from './results.report.js';

// Parses take turns by environment; the bench's all count against one.
const BENCH_ENVIRONMENT = 1;

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** How often `/healthz` is asked while a heavy query is parsed (one request at a time). */
const HEALTH_EVERY_MS = 20;

/** Issue 48's heavy queries: a long `+` chain and an `or` chain at the size limit. */
const QUERIES: { name: string; query: string }[] = [
  { name: '5,000-term `1+1+…`', query: `select ${Array(5000).fill('1').join('+')}` },
  { name: '64 KB `… or …` chain', query: orChain(64 * 1024) },
];

function orChain(bytes: number): string {
  let query = "select count() from events where event = 'e0'";
  for (let index = 1; ; index += 1) {
    const next = ` or event = 'e${index}'`;
    if (Buffer.byteLength(query + next) > bytes) return query;
    query += next;
  }
}

interface Figures {
  name: string;
  parseMs: number[];
  parseOutcome: string;
  loopStallMs: number;
  createMs: number[];
  createStatus: string;
  healthMs: number[];
}

/**
 * Issue 48's parse measures: each heavy query parsed in process (and the longest the event loop
 * stalled meanwhile), then endpoints created with it through REST on a one-process platform while
 * `/healthz` is asked again and again; printed, never asserted.
 */
async function main(): Promise<void> {
  say(`Machine: ${machine()}; load average ${load1().toFixed(2)}; code ${codeVersion(ROOT)}; ${new Date().toISOString()}`);
  const inProcess = [];
  for (const { name, query } of QUERIES) inProcess.push(await parseTimes(name, query));

  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_parse_bench');
  onExit(() => dropDatabase(databaseUrl));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-parse-bench-'));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  // One process: with several, the cluster may hand `/healthz` to a process that is not parsing.
  const env = { ...platformEnv({ databaseUrl, secretKey: randomBytes(32).toString('base64url'), dataDir }), LOG_LEVEL: 'warn', WORKERS: '1' };
  const platform = await startPlatform(ROOT, env);
  onExit(() => platform.child.stop());
  onExit(() => reportLoggedErrors([platform.child]));
  const account = await bootstrap(ROOT, env, 'Parse bench');
  const idle = await healthWhile(platform, new Promise((resolve) => setTimeout(resolve, 1_000)));
  say(`/healthz idle: p50 ${percentiles(idle).p50.toFixed(1)} ms, max ${Math.max(...idle).toFixed(1)} ms`);

  const figures: Figures[] = [];
  for (const [index, { query }] of QUERIES.entries()) figures.push({ ...inProcess[index]!, ...(await creations(platform, account, query)) });
  say(`\n${table(figures)}`);
}

async function parseTimes(name: string, query: string): Promise<Pick<Figures, 'name' | 'parseMs' | 'parseOutcome' | 'loopStallMs'>> {
  const parseMs: number[] = [];
  let parseOutcome = '';
  let loopStallMs = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    // The event loop's longest gap between two ticks of a timer that asks every millisecond.
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      loopStallMs = Math.max(loopStallMs, now - last);
      last = now;
    }, 1);
    const started = performance.now();
    parseOutcome = await parseHogQLSelect(BENCH_ENVIRONMENT, query).then(
      (ast) => `parsed (${ast.node})`,
      (error: { extensions?: { code?: string } }) => `400 ${error.extensions?.code ?? String(error)}`,
    );
    parseMs.push(performance.now() - started);
    // A parse on the event loop leaves the timer no tick until it ends: its gap counts too.
    loopStallMs = Math.max(loopStallMs, performance.now() - last);
    clearInterval(ticker);
  }
  say(`${name}: parse ${parseMs.map((ms) => ms.toFixed(0)).join(', ')} ms → ${parseOutcome}; event loop stalled up to ${loopStallMs.toFixed(0)} ms`);
  return { name, parseMs, parseOutcome, loopStallMs };
}

async function creations(platform: RunningPlatform, account: Bootstrapped, query: string): Promise<Pick<Figures, 'createMs' | 'createStatus' | 'healthMs'>> {
  const createMs: number[] = [];
  const healthMs: number[] = [];
  let createStatus = '';
  for (let round = 0; round < ROUNDS; round += 1) {
    const body = Buffer.from(JSON.stringify({ name: `heavy_${round}_${Date.now()}`, query: { kind: 'HogQLQuery', query } }));
    const started = performance.now();
    const created = httpRequest(`${platform.url}/api/environments/${account.environment_id}/endpoints/`, 'POST', body, { authorization: `Bearer ${account.personal_api_key}` }).then((response) => {
      createMs.push(performance.now() - started);
      createStatus = `${response.status} ${(JSON.parse(response.text) as { code?: string }).code ?? ''}`.trim();
    });
    healthMs.push(...(await healthWhile(platform, created)));
  }
  return { createMs, createStatus, healthMs };
}

/** `/healthz` latencies, one request at a time every HEALTH_EVERY_MS, until `work` settles. */
async function healthWhile(platform: RunningPlatform, work: Promise<unknown>): Promise<number[]> {
  let done = false;
  void work.finally(() => (done = true));
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    await httpRequest(`${platform.url}/healthz`, 'GET', undefined);
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
  }
  await work;
  return latencies;
}

function table(figures: Figures[]): string {
  const ms = (values: number[]) => `${percentiles(values).p50.toFixed(0)} ms (max ${Math.max(...values).toFixed(0)})`;
  const rows = figures.map(
    (row) =>
      `| ${row.name} | ${ms(row.parseMs)} → ${row.parseOutcome} | ${row.loopStallMs.toFixed(0)} ms | ${ms(row.createMs)} → ${row.createStatus} | p50 ${percentiles(row.healthMs).p50.toFixed(1)} / max ${Math.max(...row.healthMs).toFixed(0)} ms (${row.healthMs.length}) |`,
  );
  return [
    `| query | parse in process, p50 of ${ROUNDS} | event loop's longest stall meanwhile | endpoint creation (REST), p50 of ${ROUNDS} | \`/healthz\` meanwhile (requests) |`,
    '|---|---|---:|---|---|',
    ...rows,
  ].join('\n');
}

runBench(main);
