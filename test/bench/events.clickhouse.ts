import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { onExit, reportLoggedErrors, say } from './bench.lifecycle.js';
import { BenchApi } from './events.api.js';
import { engineTask } from './events.engine-task.js';
import { printedQueries } from './events.printed.js';
import { MATERIALIZED_PROPERTIES, runsAt } from './events.queries.js';
import type { ClickHouseFigures, Outcome, QueryFigure, SizeFigures, StoreFigures } from './events.report.js';
import { BATCH, batchPart, benchEnv, exportAndEndpoint, outcome, timeQueries, type BenchRun } from './events.stores.js';
import { percentiles } from './load.runner.js';
import { bootstrap, startPlatform, type Bootstrapped, type RunningPlatform } from './platform.fixture.js';

/** The events as loaded, properties read from the JSON text; and their copy where the two properties become columns. */
const JSON_DATABASE = 'bench';
const MATERIALIZED_DATABASE = 'bench_mat';
const MATERIALIZE_CLI = 'dist/router/process/cli/events-materialize/events-materialize.cli.js';

export interface ClickHouseResults {
  queries: Map<number, Pick<SizeFigures, 'json' | 'materialized'>>;
  store: StoreFigures;
  direct: Outcome<{ rows: number; ms: number }> | null;
}

/**
 * The platform on ClickHouse's engine in process (`CLICKHOUSE_URL=chdb:<dir> WORKERS=1`). One
 * process can hold the chDB directory, so the platform is stopped whenever the engine's own
 * process works on it: loading the events past `/batch/`'s by SQL, the direct insert of the rows
 * `/batch/` took, and the SQL the platform printed, run directly. With `npm run events:materialize`
 * built, each size is measured again on a copy of its events with `$browser` and `$current_url`
 * materialized (a copy, so that the next size starts again from the JSON text).
 */
export async function clickhouseRun(run: BenchRun): Promise<ClickHouseResults> {
  say('\nClickHouse (chDB)');
  const directory = mkdtempSync(join(tmpdir(), 'analytics-events-bench-chdb-'));
  onExit(() => rmSync(directory, { recursive: true, force: true }));
  const urlOf = (database: string) => `chdb:${directory}?database=${database}`;
  const { env } = await benchEnv('ch', { WORKERS: '1' });
  const start = async (database: string): Promise<RunningPlatform> => {
    const platform = await startPlatform(run.root, { ...env, CLICKHOUSE_URL: urlOf(database) });
    onExit(() => platform.child.stop());
    onExit(() => reportLoggedErrors([platform.child]));
    return platform;
  };
  const bootstrapped = await start(JSON_DATABASE);
  const account = await bootstrap(run.root, env, 'Events bench');
  await new BenchApi(bootstrapped, account).createQueryEndpoints();
  let ingesting: RunningPlatform | null = bootstrapped;
  const materializable = existsSync(resolve(run.root, MATERIALIZE_CLI));
  if (!materializable) say(`  no ${MATERIALIZE_CLI}: the runs with materialized columns are skipped`);
  const results: ClickHouseResults = { queries: new Map(), store: { batch: null, exportRate: { failed: 'not run' }, endpoint: { failed: 'not run' } }, direct: null };
  let loaded = 0;
  for (const size of run.options.sizes) {
    const sent = batchPart(run, size);
    if (loaded < sent) {
      ingesting ??= await start(JSON_DATABASE);
      const ms = await new BenchApi(ingesting, account).sendEvents(run.t0, loaded, sent, BATCH);
      results.store.batch = { events: sent - loaded, ms };
      say(`  /batch/: ${(sent - loaded).toLocaleString('en')} events in ${(ms / 1000).toFixed(1)} s`);
    }
    await ingesting?.child.stop();
    ingesting = null;
    if (loaded < sent) {
      results.direct = await outcome(() => engineTask(run.root, urlOf(JSON_DATABASE), { kind: 'direct-insert', team: account.environment_id, t0: run.t0, from: loaded, to: sent, ...BATCH }));
      loaded = sent;
    }
    if (loaded < size) await engineTask(run.root, urlOf(JSON_DATABASE), { kind: 'load', team: account.environment_id, t0: run.t0, from: loaded, to: size });
    loaded = size;
    const { events } = await engineTask(run.root, urlOf(JSON_DATABASE), { kind: 'count', team: account.environment_id });
    say(`  ${events.toLocaleString('en')} events stored; the queries at ${size.toLocaleString('en')}:`);
    const platform = await start(JSON_DATABASE);
    const json = await timeQueries(new BenchApi(platform, account), runsAt(size));
    if (size === run.options.sizes.at(-1)) Object.assign(results.store, await exportAndEndpoint(new BenchApi(platform, account), run, 'clickhouse'));
    await platform.child.stop();
    const engine = await engineQueries(run, size, account, JSON_DATABASE, urlOf(JSON_DATABASE), json.sql);
    const materialized = materializable ? await materializedSize(run, size, account, env, start, urlOf) : 'no events:materialize command in this build';
    results.queries.set(size, { json: { platform: json.figures, engine }, materialized });
  }
  return results;
}

/** The SQL the platform printed, run by the engine directly `runs` times each (the platform stopped). */
async function engineQueries(run: BenchRun, size: number, account: Bootstrapped, database: string, url: string, sql: Record<string, string>): Promise<Record<string, QueryFigure>> {
  const queries = await printedQueries(account.environment_id, database, sql);
  const answer = await engineTask(run.root, url, { kind: 'queries', queries, runs: runsAt(size) });
  // The rows of the answer, as the platform cuts them: the SQL reads one past the limit.
  return Object.fromEntries(queries.map(({ name, limit }) => [name, { p50: percentiles(answer.timings[name]!).p50, rows: Math.min(answer.rows[name]!, limit) }]));
}

/** The size again on a copy of its events whose two properties are materialized columns, or why not. */
async function materializedSize(
  run: BenchRun,
  size: number,
  account: Bootstrapped,
  env: NodeJS.ProcessEnv,
  start: (database: string) => Promise<RunningPlatform>,
  urlOf: (database: string) => string,
): Promise<ClickHouseFigures | string> {
  await engineTask(run.root, urlOf(JSON_DATABASE), { kind: 'copy-events', to: MATERIALIZED_DATABASE });
  // The platform makes the copy's other tables (its migrations) before the command reads them.
  await (await start(MATERIALIZED_DATABASE)).child.stop();
  const failure = await materialize(run.root, { ...env, CLICKHOUSE_URL: urlOf(MATERIALIZED_DATABASE) });
  if (failure) {
    say(`  ${failure}: the runs with materialized columns are skipped`);
    return failure;
  }
  say(`  the queries at ${size.toLocaleString('en')}, ${MATERIALIZED_PROPERTIES.join(' and ')} materialized:`);
  const platform = await start(MATERIALIZED_DATABASE);
  const measured = await timeQueries(new BenchApi(platform, account), runsAt(size));
  await platform.child.stop();
  const engine = await engineQueries(run, size, account, MATERIALIZED_DATABASE, urlOf(MATERIALIZED_DATABASE), measured.sql);
  return { platform: measured.figures, engine };
}

/** `npm run events:materialize -- $browser $current_url` on the copy, its progress shown: nothing, or why it failed. */
function materialize(root: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [resolve(root, MATERIALIZE_CLI), ...MATERIALIZED_PROPERTIES], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', (error) => done(`events:materialize did not start: ${error.message}`));
    child.once('exit', (code) => done(code === 0 ? null : `events:materialize exited with code ${code}`));
  });
}
