import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTextRepr } from '../../subgraphs/llm-analytics/text-repr/text-repr.js';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { startFakeLlm } from '../kit/fake-llm.js';
import { onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { httpRequest } from './http.request.js';
import { bigGeneration, deepTrace } from './llm.inputs.js';
import { priorityNote, standInForOtherMachines } from './load.priority.js';
import { percentiles } from './load.runner.js';
import { bootstrap, platformEnv, startPlatform } from './platform.fixture.js';
import { codeVersion, load1, machine } from './results.report.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNS = Number(process.env.BENCH_RUNS ?? 100);
/** p50 goals of the 2 MB generation through REST: issue 19's, and issue 5's before it. */
const TARGETS_MS = [10, 50];

interface Figure {
  label: string;
  p50: number;
  p99: number;
  note?: string;
}

/**
 * Issue 5's measures: text_repr of a 2 MB generation and of a 1,000-span trace, through the
 * function and through REST (one request at a time, RUNS each after a warm-up), and a summary
 * answered from the cache against one written by the model (a local OpenAI-compatible stand-in,
 * so the miss measures our side plus a loopback round trip, not a real model).
 */
async function main(): Promise<void> {
  standInForOtherMachines();
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}`);
  const generation = bigGeneration();
  const trace = deepTrace();
  const figures: Figure[] = [
    timeFunction('function: 2 MB generation', () => renderTextRepr('$ai_generation', generation)),
    timeFunction('function: 1,000-span trace, 12 levels', () => renderTextRepr('$ai_trace', trace)),
  ];

  const llm = await startFakeLlm();
  onExit(() => llm.close());
  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_llm_bench');
  onExit(() => dropDatabase(databaseUrl));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-llm-bench-'));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...platformEnv({ databaseUrl, secretKey: randomBytes(32).toString('base64url'), dataDir }), ...llm.env, LOG_LEVEL: 'warn' };
  const platform = await startPlatform(ROOT, env);
  onExit(() => platform.child.stop());
  onExit(() => reportLoggedErrors([platform.child]));
  const account = await bootstrap(ROOT, env, 'LLM bench');
  const call = restCaller(platform.url, account.personal_api_key, account.environment_id);

  const generationBody = Buffer.from(JSON.stringify({ event_type: '$ai_generation', data: generation }));
  const traceBody = Buffer.from(JSON.stringify({ event_type: '$ai_trace', data: trace }));
  say(`Request bodies: generation ${(generationBody.length / 1e6).toFixed(2)} MB, trace ${(traceBody.length / 1e6).toFixed(2)} MB`);
  const nextGeneration = varying(generationBody, 'bench-generation');
  const nextTrace = varying(traceBody, 'bench-trace');
  figures.push(await timeRest('REST: 2 MB generation', () => call('text_repr', nextGeneration()), TARGETS_MS));
  // The client of the runs before 2026-11-27 11:00 (one string, sent as it was), in the same run.
  const fetchCall = fetchCaller(platform.url, account.personal_api_key, account.environment_id);
  const generationText = generationBody.toString();
  figures.push(await timeRest('REST: 2 MB generation, fetch() with a string body', () => fetchCall('text_repr', generationText)));
  figures.push(await timeRest('REST: 1,000-span trace, 12 levels', () => call('text_repr', nextTrace())));

  await call('provider_keys', jsonBody({ provider: 'openai', name: 'bench', api_key: 'sk-valid-bench-0001', set_as_active: true }), 201);
  const summaryBodies = [false, true].map((refresh) => jsonBody({ summarize_type: 'trace', data: { trace: { id: 'sum' }, hierarchy: [trace.hierarchy] }, force_refresh: refresh }));
  const summaryBody = (refresh: boolean) => summaryBodies[Number(refresh)]!;
  figures.push(await timeRest('REST: summarization, cache miss (force_refresh)', () => call('summarization', summaryBody(true))));
  figures.push(await timeRest('REST: summarization, cache hit', () => call('summarization', summaryBody(false))));

  const rows = figures.map((figure) => `| ${figure.label} | ${figure.p50.toFixed(1)} | ${figure.p99.toFixed(1)} | ${figure.note ?? ''} |`);
  const table = ['| case | p50 (ms) | p99 (ms) | |', '|---|---:|---:|---|', ...rows].join('\n');
  say(`\n${table}\n`);
  appendFileSync(
    RESULTS_FILE,
    [
      '',
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — text_repr and summaries (llm.bench.ts)`,
      '',
      `Machine: ${machine()}. Code: ${code}. Load average (1 min) at the start: ${startLoad.toFixed(2)}. ${priorityNote()}`,
      'Run with `npm run --silent build && node dist/test/bench/llm.bench.js`. Default options; each case',
      `${RUNS} runs after ${Math.ceil(RUNS / 10)} of warm-up, one at a time; REST through the platform (\`node dist/router/process/main.js\`, in-process`,
      'subgraphs, embedded nothing: PostgreSQL at 127.0.0.1), from `node:http` over one kept-alive connection with bodies made as bytes',
      'beforehand, each text_repr body made distinct by its id; the `fetch()` row sends one string as the runs before 2026-11-27 11:00 did.',
      'The summary model is the local OpenAI-compatible stand-in of the tests.',
      '',
      table,
      '',
    ].join('\n'),
  );
  say(`Appended to ${RESULTS_FILE}`);
}

function timeFunction(label: string, work: () => unknown): Figure {
  for (let index = 0; index < Math.ceil(RUNS / 10); index++) work();
  const timings: number[] = [];
  for (let index = 0; index < RUNS; index++) {
    const started = performance.now();
    work();
    timings.push(performance.now() - started);
  }
  const { p50, p99 } = percentiles(timings);
  say(`${label}: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
  return { label, p50, p99 };
}

async function timeRest(label: string, work: () => Promise<void>, targets: readonly number[] = []): Promise<Figure> {
  for (let index = 0; index < Math.ceil(RUNS / 10); index++) await work();
  const timings: number[] = [];
  for (let index = 0; index < RUNS; index++) {
    const started = performance.now();
    await work();
    timings.push(performance.now() - started);
  }
  const { p50, p99 } = percentiles(timings);
  say(`${label}: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
  const note = targets.map((target) => `p50 < ${target} ms: ${p50 < target ? 'met' : 'not met'}`).join('; ');
  return { label, p50, p99, note };
}

/**
 * The same body made distinct for every call, as real callers' are: a counter written over the
 * first place `marker` appears (an id), so that nothing could answer a request as the one before.
 */
function varying(body: Buffer, marker: string): () => Buffer {
  const at = body.indexOf(marker);
  if (at < 0) throw new Error(`"${marker}" is not in the body`);
  let count = 0;
  return () => {
    body.write(String(count++).padStart(marker.length, '0'), at, 'latin1');
    return body;
  };
}

function jsonBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/**
 * POSTs a body to an llm_analytics path and checks the status. The bodies are bytes made before
 * the clock starts and go over one kept-alive connection with `node:http`: the client shares the
 * machine's two cores with the platform, and `fetch` encoding a 2 MB string on every call timed
 * the client as much as the platform.
 */
function restCaller(url: string, key: string, environmentId: number): (path: string, body: Buffer, status?: number) => Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  onExit(() => agent.destroy());
  return async (path: string, body: Buffer, status = 200): Promise<void> => {
    const response = await httpRequest(`${url}/api/environments/${environmentId}/llm_analytics/${path}/`, 'POST', body, { authorization: `Bearer ${key}` }, agent);
    check(path, response.status, status, response.text);
  };
}

/** The same with `fetch` and a string body, as the runs before 2026-11-27 11:00 sent it. */
function fetchCaller(url: string, key: string, environmentId: number): (path: string, body: string) => Promise<void> {
  return async (path, body) => {
    const response = await fetch(`${url}/api/environments/${environmentId}/llm_analytics/${path}/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    check(path, response.status, 200, await response.text());
  };
}

function check(path: string, status: number, expected: number, text: string): void {
  if (status !== expected) throw new Error(`${path} answered ${status}: ${text.slice(0, 300)}`);
}

runBench(main);
