import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createClient as createRedisClient } from 'redis';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { logRecord, type BenchChild } from './child.process.js';
import { analyse, lastSequence, openAudience, openAuditor, replayRun, sawRunEnd, until, type FanOutFigures } from './conversations.fanout.js';
import { answerOf, now, startBenchModel, type BenchModel } from './conversations.model.js';
import { SSE_WORDS, timeSse, type SseFigures, type SseTarget } from './conversations.sse.js';
import { percentiles } from './load.runner.js';
import { bootstrap, platformEnv, startPlatform, type Bootstrapped } from './platform.fixture.js';
import { processTree, treeCpuMs } from './process.cpu.js';
import { codeVersion, load1, machine } from './results.report.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Case 1: this many subscribers of one conversation, a 200-word answer, one chunk every 10 ms. */
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const WORDS = 200;
const PACE_MS = 10;
const GOAL_P99_MS = 100;
/** Handshakes in flight while the sockets open (browsers arrive over time, not all in one tick). */
const CONNECT_CONCURRENCY = 50;
/** Case 2: this many SSE requests one at a time, then as many again this many at a time. */
const SSE_REQUESTS = Number(process.env.BENCH_SSE_REQUESTS ?? 200);
const SSE_CONCURRENCY = 20;
/** The whole bench stops itself (clean-up included) past this. */
const BUDGET_MS = 285_000;
const RUN_END_WAIT_MS = 60_000;

interface Layout {
  sockets: number;
  perSocket: number;
  concurrency: number;
  why: string;
}

interface FanOutRun {
  figures: FanOutFigures;
  layout: Layout;
  connectSeconds: number;
  connectMs: { p50: number; p99: number };
  /** Sockets the platform closed while the bench followed the conversation, and when (s after the measured POST). */
  closedAfterConnect: { afterPost: number; what: string }[];
  warmupRuns: number;
  notLive: number;
  platformFds: number | null;
  platformCpuMs: number | null;
  benchCpuMs: number;
  loopDelay: { p99: number; max: number };
  postMs: number;
  runMs: number;
  storedWords: number;
}

interface Variant {
  name: string;
  fanOut: FanOutRun;
  sequential: SseFigures;
  concurrent: SseFigures;
  warnings: string[];
  errors: string[];
}

/**
 * The conversations stream under load, as `npm start` runs the platform (the built router in a
 * child process), once with Redis pub/sub and once with the in-process one, on one scratch
 * database: (1) a thousand graphql-ws subscribers of one conversation while a run streams a
 * 200-word answer, one chunk every 10 ms; (2) POST …/conversations/ as SSE, timed to the first
 * byte and to the end of the stream, one at a time and 20 at a time. Prints figures; it fails
 * (exit code 1) only when events or answers went missing, never on a timing.
 */
async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    process.stderr.write(`\nThe bench ran past ${BUDGET_MS / 1000} s: stopping.\n`);
    process.kill(process.pid, 'SIGTERM');
  }, BUDGET_MS);
  deadline.unref();
  for (const url of [SERVER_URL, REDIS_URL]) loopbackOnly(url);
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}`);
  const files = openFiles();
  const layout = chooseLayout(files.soft);
  say(`Open files: ulimit -n ${files.shell} (this process: soft ${files.soft}, hard ${files.hard}). ${layout.why}`);

  const model = await startBenchModel(PACE_MS);
  onExit(() => model.close());
  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_conversations_bench');
  onExit(() => dropDatabase(databaseUrl));
  const redisPrefix = `bench-conversations-${process.pid}-${Date.now().toString(36)}:`;
  await checkRedis(REDIS_URL);
  onExit(() => dropRedisKeys(REDIS_URL, redisPrefix));
  const secretKey = randomBytes(32).toString('base64url');

  const variants: Variant[] = [];
  let account: Bootstrapped | undefined;
  // BENCH_PUBSUB=redis or in-process runs one of the two (a trial); by default both, Redis first.
  const only = process.env.BENCH_PUBSUB;
  const pubsubs = ([
    ['Redis', REDIS_URL],
    ['in-process', ''],
  ] as const).filter(([name]) => !only || name.toLowerCase() === only.toLowerCase());
  for (const [name, redisUrl] of pubsubs) {
    const dataDir = mkdtempSync(join(tmpdir(), 'analytics-conversations-bench-'));
    onExit(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      ...platformEnv({ databaseUrl, secretKey, dataDir }),
      ...model.env,
      LOG_LEVEL: 'warn',
      REDIS_URL: redisUrl,
      REDIS_CHANNEL_PREFIX: redisPrefix,
    };
    say(`\n[${name} pub/sub] starting the platform…`);
    const platform = await startPlatform(ROOT, env);
    onExit(() => platform.child.stop());
    onExit(() => reportLoggedErrors([platform.child]));
    const logged = watchLog(platform.child);
    account ??= await bootstrap(ROOT, env, 'Conversations bench');
    const pid = platform.child.pid;
    say(`[${name} pub/sub] platform on ${platform.url} (pid ${pid})`);

    const fanOut = await measureFanOut(name, platform.url, account, model, layout, pid);
    printFanOut(name, fanOut);
    const target: SseTarget = { url: platform.url, environmentId: account.environment_id, key: account.personal_api_key };
    await model.setPace(0);
    await timeSse(target, 10, 1);
    const sequential = await timeSse(target, SSE_REQUESTS, 1);
    say(`[${name} pub/sub] SSE one at a time: ${sseLine(sequential)}`);
    const concurrent = await timeSse(target, SSE_REQUESTS, SSE_CONCURRENCY);
    say(`[${name} pub/sub] SSE ${SSE_CONCURRENCY} at a time: ${sseLine(concurrent)}`);
    await platform.child.stop();
    variants.push({ name, fanOut, sequential, concurrent, warnings: logged.warnings, errors: [...platform.child.errorLines] });
  }

  const counts = await model.counts();
  const section = report(variants, { startLoad, code, files, counts });
  say(`\n${section}`);
  appendFileSync(RESULTS_FILE, `\n${section}`);
  say(`Appended to ${RESULTS_FILE}`);
  const broken = variants.filter(({ fanOut, sequential, concurrent }) => deliveryFailed(fanOut.figures) || sequential.ok < sequential.requests || concurrent.ok < concurrent.requests);
  if (broken.length > 0) {
    process.stderr.write(`\nEvents or answers went missing (${broken.map((variant) => variant.name).join(', ')}): see the figures above.\n`);
    process.exitCode = 1;
  }
}

/** Case 1 on a running platform. */
async function measureFanOut(name: string, url: string, account: Bootstrapped, model: BenchModel, layout: Layout, pid: number): Promise<FanOutRun> {
  const conversation = randomUUID();
  const post = (content: string) => postMessage(url, account, { content, conversation });
  await model.setPace(0);
  // The conversation exists before anyone follows it (only its owner may).
  await post('bench fan-out conversation [words:5]');
  await idle(url, account, conversation);

  const wsUrl = `${url.replace(/^http/, 'ws')}/graphql`;
  const auditor = await openAuditor(wsUrl, account.personal_api_key, conversation);
  const connectStarted = now();
  const audience = await openAudience(wsUrl, account.personal_api_key, conversation, layout);
  const connectSeconds = (now() - connectStarted) / 1000;
  const { subscribers } = audience;
  say(`[${name} pub/sub] ${layout.sockets} sockets open in ${connectSeconds.toFixed(1)} s, ${subscribers.length} subscriptions sent`);
  try {
    // graphql-ws does not acknowledge a subscription: a short run that every subscriber sees proves them live.
    let warmupRuns = 0;
    let live = false;
    while (!live && warmupRuns < 3) {
      warmupRuns++;
      const before = lastSequence(subscribers);
      await post(`bench fan-out warm-up ${warmupRuns} [words:5]`);
      live = await until(() => subscribers.every((subscriber) => sawRunEnd(subscriber, before)), 20_000);
      await idle(url, account, conversation);
    }
    const notLive = subscribers.filter((subscriber) => subscriber.events.length === 0).length;
    if (!live) say(`[${name} pub/sub] after ${warmupRuns} warm-up runs, ${notLive} subscriptions have received nothing`);
    await sleep(500);
    const fds = countFds(pid);
    const warmupEnd = lastSequence(subscribers);

    await model.setPace(PACE_MS);
    const cpuBefore = treeCpuMs(pid);
    const benchCpuBefore = process.cpuUsage();
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const started = now();
    await post(`bench [words:${WORDS}]`);
    const postMs = now() - started;
    const ended = await until(() => subscribers.every((subscriber) => sawRunEnd(subscriber, warmupEnd)), RUN_END_WAIT_MS);
    const runMs = now() - started;
    loop.disable();
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const cpuAfter = treeCpuMs(pid);
    if (!ended) say(`[${name} pub/sub] not every subscriber saw the run end (or failed) within ${RUN_END_WAIT_MS / 1000} s`);
    // Anything late (a repeat) still counts.
    await sleep(500);
    await idle(url, account, conversation);

    const answer = firstAnswer(subscribers, warmupEnd);
    const written = answer === undefined ? new Map<string, number>() : await model.writtenAt(answer);
    const runId = auditor.runAfter(warmupEnd);
    const log = runId ? await replayRun(wsUrl, account.personal_api_key, conversation, runId) : null;
    if (!log) say(`[${name} pub/sub] the run's log could not be read back: what was published is taken from what subscribers received`);
    const figures = analyse(subscribers, warmupEnd, written, answer ?? -1, log);
    const handshakes = percentiles(audience.connectMs);
    // Before our own close below, which closes every socket.
    const closedAfterConnect = audience.closedAfterConnect.map(({ at, what }) => ({ afterPost: (at - started) / 1000, what }));
    return {
      figures,
      layout,
      connectSeconds,
      connectMs: { p50: handshakes.p50, p99: handshakes.p99 },
      closedAfterConnect,
      warmupRuns,
      notLive,
      platformFds: fds,
      platformCpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
      benchCpuMs: (benchCpu.user + benchCpu.system) / 1000,
      loopDelay: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      postMs,
      runMs,
      storedWords: await storedAnswerWords(url, account, conversation),
    };
  } finally {
    await Promise.all([audience.close(), auditor.close()]);
  }
}

/** The model's number for the answer streamed after `warmupEnd`, from the first word any subscriber got. */
function firstAnswer(subscribers: { events: { sequence: number; kind: string; delta: string | null }[] }[], warmupEnd: number): number | undefined {
  for (const subscriber of subscribers) {
    for (const event of subscriber.events) {
      if (event.sequence <= warmupEnd || event.kind !== 'message_chunk') continue;
      const answer = answerOf((event.delta ?? '').trim().split(/\s+/)[0] ?? '');
      if (answer !== undefined) return answer;
    }
  }
  return undefined;
}

async function postMessage(url: string, account: Bootstrapped, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${url}/api/environments/${account.environment_id}/conversations/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.personal_api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST conversations answered ${response.status}: ${text.slice(0, 300)}`);
}

async function getConversation(url: string, account: Bootstrapped, id: string): Promise<{ status: string; messages: { type: string; content?: string }[] }> {
  const response = await fetch(`${url}/api/environments/${account.environment_id}/conversations/${id}/`, {
    headers: { authorization: `Bearer ${account.personal_api_key}` },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET conversation answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as { status: string; messages: { type: string; content?: string }[] };
}

async function idle(url: string, account: Bootstrapped, id: string, ms = 30_000): Promise<void> {
  const deadline = now() + ms;
  for (;;) {
    const { status } = await getConversation(url, account, id);
    if (status === 'idle') return;
    if (now() > deadline) throw new Error(`conversation ${id} still ${status} after ${ms} ms`);
    await sleep(50);
  }
}

/** How many words the stored answer of the last run holds. */
async function storedAnswerWords(url: string, account: Bootstrapped, id: string): Promise<number> {
  const { messages } = await getConversation(url, account, id);
  const last = messages.filter((message) => message.type === 'ai').at(-1);
  return (last?.content ?? '').split(/\s+/).filter(Boolean).length;
}

/** Separate sockets, as browsers open them, when the open-files limit allows; else 100 × 10. */
function chooseLayout(softLimit: number): Layout {
  const forced = Number(process.env.BENCH_SOCKETS ?? 0);
  if (forced > 0) {
    return { sockets: forced, perSocket: Math.ceil(SUBSCRIBERS / forced), concurrency: CONNECT_CONCURRENCY, why: `BENCH_SOCKETS=${forced}: ${forced} sockets × ${Math.ceil(SUBSCRIBERS / forced)} subscriptions.` };
  }
  // This process holds one descriptor per socket; the platform (which inherits the limit) one per
  // client socket and, at worst, one per subgraph subscription socket of the router and of the subgraph.
  const needed = 3 * SUBSCRIBERS + 512;
  if (softLimit >= needed) return { sockets: SUBSCRIBERS, perSocket: 1, concurrency: CONNECT_CONCURRENCY, why: `${SUBSCRIBERS} separate sockets (needs about ${needed} descriptors).` };
  const sockets = Math.ceil(SUBSCRIBERS / 10);
  return { sockets, perSocket: 10, concurrency: CONNECT_CONCURRENCY, why: `The limit is under the ${needed} descriptors ${SUBSCRIBERS} separate sockets may need: falling back to ${sockets} sockets × 10 subscriptions.` };
}

/** The open-files limit: what `ulimit -n` says, and this process's own soft and hard limits. */
function openFiles(): { shell: string; soft: number; hard: number } {
  const shell = (() => {
    try {
      return execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const line = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  const limit = (value: string | undefined) => (value === undefined || value === 'unlimited' ? Number.POSITIVE_INFINITY : Number(value));
  return { shell, soft: limit(line?.[1]), hard: limit(line?.[2]) };
}

/** Descriptors open in the platform's processes (its workers hold the sockets); null once it has ended. */
function countFds(pid: number): number | null {
  const tree = processTree(pid);
  if (tree.length === 0) return null;
  return tree.reduce((sum, member) => {
    try {
      return sum + readdirSync(`/proc/${member}/fd`).length;
    } catch {
      // A worker that ended while we looked holds none.
      return sum;
    }
  }, 0);
}

/** The bench talks to this machine only. */
function loopbackOnly(url: string): void {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(host)) throw new Error(`${url} is not on 127.0.0.1: this bench talks to the local machine only`);
}

async function checkRedis(url: string): Promise<void> {
  const client = createRedisClient({ url, socket: { connectTimeout: 3000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new Error(`no Redis at ${url} (BENCH_REDIS_URL): ${(error as Error).message}`);
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/** Removes the counters and replay logs the Redis run left under its own prefix. */
async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createRedisClient({ url, socket: { connectTimeout: 3000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  await client.connect();
  try {
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      const keys = (Array.isArray(batch) ? batch : [batch]) as string[];
      if (keys.length > 0) await client.del(keys);
    }
  } finally {
    client.destroy();
  }
}

/** Warnings and errors the platform logs (errors are kept by BenchChild as well). */
function watchLog(child: BenchChild): { warnings: string[] } {
  const warnings: string[] = [];
  child
    .waitFor((line) => {
      const level = logRecord(line)?.level;
      if (typeof level === 'number' && level === 40) warnings.push(line);
      return undefined;
    }, BUDGET_MS)
    .catch(() => undefined);
  return { warnings };
}

function deliveryFailed(figures: FanOutFigures): boolean {
  return (
    figures.delivered < figures.expected ||
    figures.missingEvents + figures.gaps + figures.duplicates + figures.outOfOrder + figures.missingWords + figures.duplicateWords > 0 ||
    figures.wordsDelivered !== figures.wordsExpected ||
    figures.problems.length > 0
  );
}

/** The sockets the platform closed, by code and reason, with when. */
function closedLine(closed: { afterPost: number; what: string }[]): string {
  if (closed.length === 0) return '';
  const reasons = new Map<string, number>();
  for (const { what } of closed) {
    const reason = what.replace(/^socket \d+: /, '');
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const times = closed.map(({ afterPost }) => afterPost);
  const byReason = [...reasons].map(([reason, count]) => `${count} × ${reason}`).join(', ');
  return `the platform closed ${closed.length} sockets during the run (${byReason}), ${Math.min(...times).toFixed(2)}–${Math.max(...times).toFixed(2)} s after the measured POST`;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '–');
const thousands = (value: number) => value.toLocaleString('en-US');

function sseLine(figures: SseFigures): string {
  return `${figures.ok}/${figures.requests} ok, first byte p50 ${ms(figures.firstByte.p50)} ms p99 ${ms(figures.firstByte.p99)} ms, end p50 ${ms(figures.end.p50)} ms p99 ${ms(figures.end.p99)} ms${figures.failures.length ? `; e.g. ${figures.failures[0]}` : ''}`;
}

function printFanOut(name: string, run: FanOutRun): void {
  const { figures } = run;
  say(
    `[${name} pub/sub] fan-out: ${thousands(figures.delivered)}/${thousands(figures.expected)} events, ${thousands(figures.wordsDelivered)}/${thousands(figures.wordsExpected)} words; ` +
      `end-to-end p50 ${ms(figures.endToEnd.p50)} p99 ${ms(figures.endToEnd.p99)} max ${ms(figures.endToEnd.max)} ms; spread p99 ${ms(figures.fanOut.p99)} ms; ` +
      `gaps ${figures.gaps}, duplicates ${figures.duplicates}`,
  );
}

function report(variants: Variant[], run: { startLoad: number; code: string; files: { shell: string; soft: number; hard: number }; counts: { streamed: number; plain: number; other: number } }): string {
  const layout = variants[0]!.fanOut.layout;
  const shape = layout.perSocket === 1 ? `${layout.sockets} separate sockets` : `${layout.sockets} sockets × ${layout.perSocket} subscriptions (fallback)`;
  const fanOutRows = variants.map(({ name, fanOut: { figures } }) =>
    [
      name,
      `${thousands(figures.chunkEvents)} / ${figures.modelChunks}`,
      `${thousands(figures.delivered)} / ${thousands(figures.expected)}`,
      `${thousands(figures.wordsDelivered)} / ${thousands(figures.wordsExpected)}`,
      `${figures.gaps} / ${figures.duplicates}`,
      ms(figures.endToEnd.p50),
      ms(figures.endToEnd.p99),
      ms(figures.endToEnd.max),
      `${ms(figures.fanOut.p50)} / ${ms(figures.fanOut.p99)} / ${ms(figures.fanOut.max)}`,
      figures.endToEnd.p99 < GOAL_P99_MS ? 'met' : 'not met',
    ].join(' | '),
  );
  const sseRows = variants.flatMap(({ name, sequential, concurrent }) =>
    [
      [sequential, 1],
      [concurrent, SSE_CONCURRENCY],
    ].map(([figures, concurrency]) => {
      const f = figures as SseFigures;
      return [name, String(concurrency), `${f.ok} / ${f.requests}`, ms(f.firstByte.p50), ms(f.firstByte.p99), ms(f.end.p50), ms(f.end.p99), (f.requests / f.seconds).toFixed(1)].join(' | ');
    }),
  );
  const notes = variants.flatMap(({ name, fanOut, sequential, concurrent, warnings, errors }) => {
    const { figures } = fanOut;
    const lines = [
      `- ${name}: ${fanOut.layout.sockets} sockets acknowledged in ${fanOut.connectSeconds.toFixed(1)} s (${CONNECT_CONCURRENCY} handshakes at a time; handshake p50 ${ms(fanOut.connectMs.p50)} ms, p99 ${ms(fanOut.connectMs.p99)} ms); ` +
        `${fanOut.warmupRuns} warm-up run(s) of 5 words before every subscription had an event; the platform held ${fanOut.platformFds ?? '?'} descriptors then. ` +
        `POST of the measured run answered in ${ms(fanOut.postMs)} ms; first word at the first subscriber ${ms(figures.firstWordMs)} ms after the model wrote it; ` +
        `every subscriber had the run's last event ${(fanOut.runMs / 1000).toFixed(2)} s after the POST (the model takes about ${((WORDS * (PACE_MS + 1)) / 1000).toFixed(1)} s). ` +
        `CPU during the run: platform ${fanOut.platformCpuMs === null ? '?' : thousands(Math.round(fanOut.platformCpuMs))} ms, bench ${thousands(Math.round(fanOut.benchCpuMs))} ms; ` +
        `bench event-loop delay p99 ${ms(fanOut.loopDelay.p99)} ms, max ${ms(fanOut.loopDelay.max)} ms. Stored answer: ${fanOut.storedWords} words.`,
    ];
    const issues = [
      figures.fromLog ? '' : "the run's log could not be read back: expected events are what any subscriber received",
      figures.subscribersIncomplete ? `${figures.subscribersIncomplete} subscribers missed events` : '',
      figures.missingEvents ? `${figures.missingEvents} events missing` : '',
      figures.outOfOrder ? `${figures.outOfOrder} out of order` : '',
      figures.missingWords || figures.duplicateWords ? `${figures.missingWords} words missing, ${figures.duplicateWords} repeated` : '',
      closedLine(fanOut.closedAfterConnect),
      ...figures.problems,
      ...[...sequential.failures, ...concurrent.failures].slice(0, 3).map((failure) => `SSE: ${failure}`),
      warnings.length ? `the platform logged ${warnings.length} warning(s), e.g. ${warnings[0]!.slice(0, 400)}` : '',
      errors.length ? `the platform logged ${errors.length} error(s), e.g. ${errors[0]!.slice(0, 400)}` : '',
    ].filter(Boolean);
    if (issues.length) lines.push(`- ${name}, not clean: ${issues.join('; ')}.`);
    return lines;
  });
  return [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — conversation stream fan-out and SSE (conversations.bench.ts)`,
    '',
    `Machine: ${machine()}. Code: ${run.code}. Load average (1 min) at the start: ${run.startLoad.toFixed(2)}. ` +
      `Open files: \`ulimit -n\` ${run.files.shell} (soft ${run.files.soft}, hard ${run.files.hard}).`,
    'Run with `npm run --silent build && node dist/test/bench/conversations.bench.js`. The platform is `node dist/router/process/main.js` in a child',
    'process (LOG_LEVEL=warn) on a scratch database of the PostgreSQL server at 127.0.0.1, first with REDIS_URL (Redis at 127.0.0.1,',
    'a prefix of its own), then without (in-process pub/sub). The model is an OpenAI-compatible stand-in in a worker thread of the',
    'bench (OPENAI_BASE_URL), which writes one word per chunk and notes when; subscribers run on the bench\'s main thread, on the same clock.',
    '',
    `(1) ${SUBSCRIBERS} graphql-ws subscribers (\`graphql-ws\` over \`ws\`, key in connectionParams; ${shape}) of one conversation through the`,
    `router (\`conversation_stream(conversation:) { sequence kind delta }\`), proven live by a warm-up run; then POST \`bench [words:${WORDS}]\``,
    `to it: ${WORDS} chunks, one every ${PACE_MS} ms. End-to-end: a subscriber's receipt of a delta − when the model wrote each word it`,
    'carries (chunks merged by the platform are matched word by word), over every subscriber and word. Spread: a subscriber\'s receipt',
    'of a chunk event − the first subscriber\'s receipt of it. Gaps and duplicates by sequence over each whole subscription. Expected',
    'events: the run\'s log, read back after the run by `conversation_stream(conversation, run)` (the run id from one more',
    'subscription on a socket of its own, not counted), times the subscribers.',
    '',
    '| pub/sub | chunk events / model chunks | events delivered / expected | words delivered / expected | gaps / duplicates | end-to-end p50 (ms) | p99 (ms) | max (ms) | spread p50 / p99 / max (ms) | p99 < 100 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...fanOutRows.map((row) => `| ${row} |`),
    '',
    `(2) POST …/conversations/ with \`Accept: text/event-stream\`, a new conversation and distinct content each time, the model answering`,
    `${SSE_WORDS} words at once: ${SSE_REQUESTS} one at a time (after 10 unmeasured), then ${SSE_REQUESTS} with ${SSE_CONCURRENCY} in flight (node:http, kept-alive`,
    'connections). From sending the request to the first byte of the body, and to the end of the stream; ok = 200, an event stream, and',
    'the whole answer in its last message frame.',
    '',
    '| pub/sub | in flight | ok / requests | first byte p50 (ms) | p99 (ms) | end of stream p50 (ms) | p99 (ms) | requests/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...sseRows.map((row) => `| ${row} |`),
    '',
    ...notes,
    `- The model answered ${run.counts.streamed} streamed and ${run.counts.plain} plain completions (titles of new conversations); ${run.counts.other} other requests.`,
    '',
  ].join('\n');
}

const sleep = (delay: number) => new Promise((resolve) => setTimeout(resolve, delay));

runBench(main);
