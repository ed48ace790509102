import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { startApolloGateway } from './apollo-gateway.fixture.js';
import type { BenchChild } from './child.process.js';
import { CONNECTIONS, failed, MEASURE_SECONDS, measure, type LoadFigures } from './load.runner.js';
import { platformEnv, seed, startPlatform } from './platform.fixture.js';
import { appendResults, codeVersion, load1, machine, ratioLines, table, type Measured } from './results.report.js';
import { checkAnswers, graphqlTarget, restTarget } from './router.targets.js';

/** The repository root: dist/test/bench/ → three levels up. Children run there, as `npm start` does. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Undo steps, run last-in first-out, once, whichever way the bench ends. */
const undo: Array<() => unknown> = [];
let cleaning: Promise<void> | undefined;

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of undo.reverse()) {
      await Promise.resolve()
        .then(step)
        .catch((error: unknown) => process.stderr.write(`clean-up step failed: ${(error as Error).message}\n`));
    }
  })();
  return cleaning;
}

/** An interrupted bench still stops its servers and drops its scratch database. */
function takeOverSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      process.stderr.write(`\n${signal}: stopping the servers and dropping the scratch database…\n`);
      void cleanUp().finally(() => process.exit(128 + constants.signals[signal]));
    });
  }
}

/**
 * `npm run bench`: our router against `@apollo/gateway` on the same subgraphs, and our REST layer
 * against our GraphQL, under the same load. Servers run in child processes so that autocannon,
 * here, does not share their event loop. Fails on any non-2xx or error answer, never on a timing.
 */
async function main(): Promise<void> {
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}`);
  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_bench');
  undo.push(() => dropDatabase(databaseUrl));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-bench-'));
  undo.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const secretKey = randomBytes(32).toString('base64url');
  const env = platformEnv({ databaseUrl, secretKey, dataDir });

  const platform = await startPlatform(ROOT, env);
  undo.push(() => platform.child.stop());
  const seeded = await seed(ROOT, env, platform.url);
  const apollo = await startApolloGateway(ROOT, { secretKey, subgraphUrls: platform.subgraphUrls });
  undo.push(() => apollo.child.stop());
  say(`Platform on ${platform.url}, Apollo gateway on ${apollo.graphqlUrl}; subgraphs ${JSON.stringify(platform.subgraphUrls)}`);

  const targets = [
    graphqlTarget('a', 'our router, GraphQL', `${platform.url}/graphql`, seeded),
    graphqlTarget('b', '@apollo/gateway, GraphQL', apollo.graphqlUrl, seeded),
    restTarget('c', 'our router, REST', platform.url, seeded),
  ];
  await checkAnswers(targets[0]!, targets[1]!, targets[2]!, seeded);

  const measured: Measured[] = [];
  const failures: string[] = [];
  for (const target of targets) {
    say(`(${target.key}) ${target.label}: ${target.method} ${target.url}, ${CONNECTIONS} connections, ${MEASURE_SECONDS} s…`);
    const { warmup, run } = await measure(target);
    measured.push({ target, run });
    failures.push(...describeFailure(`(${target.key}) warm-up`, warmup), ...describeFailure(`(${target.key})`, run));
  }

  say(`\n${table(measured)}\n\n${ratioLines(measured).join('\n')}`);
  say("Note: (c) REST records leave out `project` (PostHog's record has none), so REST asks the projects subgraph nothing.");
  reportLoggedErrors([platform.child, apollo.child]);
  if (failures.length > 0) throw new Error(`answers under load were not all clean 2xx:\n${failures.join('\n')}`);
  appendResults(RESULTS_FILE, measured, { seconds: MEASURE_SECONDS, startLoad, code });
  say(`Appended to ${RESULTS_FILE}`);
}

function describeFailure(name: string, figures: LoadFigures): string[] {
  if (!failed(figures)) return [];
  const counts = `${name}: ${figures.non2xx} non-2xx, ${figures.errors} connection errors (${figures.timeouts} timeouts), ${figures.badBodies} bad bodies of ${figures.requests}`;
  return [counts, ...figures.samples.map((sample) => `  e.g. ${sample}`)];
}

/** Errors the servers logged during the run: a defect under load even when every answer was 2xx. */
function reportLoggedErrors(children: BenchChild[]): void {
  for (const child of children) {
    if (child.errorLines.length === 0) continue;
    say(`\n${child.label} logged ${child.errorLines.length} error line(s); the first:`);
    for (const line of child.errorLines.slice(0, 3)) say(`  ${line.slice(0, 1000)}`);
  }
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

takeOverSignals();
main()
  .then(cleanUp, async (error: unknown) => {
    process.stderr.write(`\nbench failed: ${(error as Error).message ?? String(error)}\n`);
    await cleanUp();
    process.exitCode = 1;
  })
  .finally(() => process.exit());
