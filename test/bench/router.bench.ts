import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { startApolloGateway } from './apollo-gateway.fixture.js';
import { describeFailure, onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { standInForOtherMachines } from './load.priority.js';
import { CONNECTIONS, MEASURE_SECONDS, measureInTurns } from './load.runner.js';
import { platformEnv, seed, startPlatform } from './platform.fixture.js';
import { appendResults, codeVersion, load1, machine, ratioLines, table, type Measured } from './results.report.js';
import { checkAnswers, distinctGraphqlTarget, distinctRestTarget, graphqlTarget, restTarget } from './router.targets.js';

/** The repository root: dist/test/bench/ → three levels up. Children run there, as `npm start` does. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Turns each target's seconds are split into, the targets taking turns (BENCH_ROUNDS changes it). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/**
 * `npm run bench`: our router against `@apollo/gateway` on the same subgraphs, and our REST layer
 * against our GraphQL, under the same load. Servers run in child processes so that autocannon,
 * here, does not share their event loop. Fails on any non-2xx or error answer, never on a timing.
 */
async function main(): Promise<void> {
  standInForOtherMachines();
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}; WORKERS ${process.env.WORKERS || `default (${availableParallelism()})`}`);
  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_bench');
  onExit(() => dropDatabase(databaseUrl));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-bench-'));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const secretKey = randomBytes(32).toString('base64url');
  const env = platformEnv({ databaseUrl, secretKey, dataDir });

  const platform = await startPlatform(ROOT, env);
  onExit(() => platform.child.stop());
  const seeded = await seed(ROOT, env, platform.url);
  const apollo = await startApolloGateway(ROOT, { secretKey, subgraphUrls: platform.subgraphUrls });
  onExit(() => apollo.child.stop());
  say(`Platform on ${platform.url}, Apollo gateway on ${apollo.graphqlUrl}; subgraphs ${JSON.stringify(platform.subgraphUrls)}`);

  const targets = [
    graphqlTarget('a', 'our router, GraphQL', `${platform.url}/graphql`, seeded),
    graphqlTarget('b', '@apollo/gateway, GraphQL', apollo.graphqlUrl, seeded),
    restTarget('c', 'our router, REST', platform.url, seeded),
    distinctGraphqlTarget('d', 'our router, GraphQL, distinct variables', `${platform.url}/graphql`, seeded),
    distinctGraphqlTarget('e', '@apollo/gateway, GraphQL, distinct variables', apollo.graphqlUrl, seeded),
    distinctRestTarget('f', 'our router, REST, distinct page sizes', platform.url, seeded),
  ];
  await checkAnswers(targets[0]!, targets[1]!, targets[2]!, seeded);

  say(`${targets.length} targets, ${CONNECTIONS} connections, ${MEASURE_SECONDS} s each in ${ROUNDS} turns…`);
  const figures = await measureInTurns(targets, ROUNDS);
  const measured: Measured[] = targets.map((target, index) => ({ target, run: figures[index]!.run }));
  const failures = targets.flatMap((target, index) => [
    ...describeFailure(`(${target.key}) warm-up`, figures[index]!.warmup),
    ...describeFailure(`(${target.key})`, figures[index]!.run),
  ]);

  say(`\n${table(measured)}\n\n${ratioLines(measured).join('\n')}`);
  say("Note: (c) REST records leave out `project` (PostHog's record has none), so REST asks the projects subgraph nothing.");
  reportLoggedErrors([platform.child, apollo.child]);
  if (failures.length > 0) throw new Error(`answers under load were not all clean 2xx:\n${failures.join('\n')}`);
  appendResults(RESULTS_FILE, measured, { seconds: MEASURE_SECONDS, rounds: ROUNDS, startLoad, code });
  say(`Appended to ${RESULTS_FILE}`);
}

runBench(main);
