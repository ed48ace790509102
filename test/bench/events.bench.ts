import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { onExit, runBench, say } from './bench.lifecycle.js';
import { clickhouseRun, type ClickHouseResults } from './events.clickhouse.js';
import { benchT0 } from './events.generator.js';
import { eventsBenchOptions } from './events.options.js';
import { MATERIALIZED_PROPERTIES, runsAt } from './events.queries.js';
import { queriesTable, storesTable, type SizeFigures, type StoreFigures } from './events.report.js';
import { postgresRun, SERVER_URL, type BenchRun } from './events.stores.js';
import { codeVersion, load1, machine } from './results.report.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');

/**
 * Issue 51's measures, in one run: the four queries of ../shared/bench/events-queries.md on the
 * same generated events at each size, live, on the platform with its events on PostgreSQL and on
 * ClickHouse (chDB), with the engine's own time for the SQL the platform printed, and again with
 * two properties materialized; `/batch/` into both stores against a direct insert; the batch
 * export read rate; a materialized endpoint against its live run. Printed and appended to
 * RESULTS.md; never asserted.
 */
async function main(): Promise<void> {
  const options = eventsBenchOptions();
  const startLoad = load1();
  const code = codeVersion(ROOT);
  const startedAt = new Date();
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}`);
  say(`Sizes ${options.sizes.map((size) => size.toLocaleString('en')).join(', ')}; ${options.batchEvents.toLocaleString('en')} events of each store through /batch/, the rest by SQL`);
  const destinationUrl = await createScratchDatabase(SERVER_URL, 'analytics_events_bench_exports');
  onExit(() => dropDatabase(destinationUrl));
  const run: BenchRun = { root: ROOT, options, t0: benchT0(), destinationUrl };

  const postgres = await postgresRun(run);
  const clickhouse = await clickhouseRun(run);
  const sizes: SizeFigures[] = options.sizes.map((size) => ({ size, runs: runsAt(size), postgres: postgres.queries.get(size)!, ...clickhouse.queries.get(size)! }));
  report(run, sizes, postgres.store, clickhouse, { startLoad, code, startedAt });
}

function report(run: BenchRun, sizes: SizeFigures[], postgres: StoreFigures, clickhouse: ClickHouseResults, at: { startLoad: number; code: string; startedAt: Date }): void {
  const tables = sizes.flatMap((figures) => [
    `**${figures.size.toLocaleString('en')} events** (p50 of ${figures.runs} runs after one warm-up, \`refresh: force\`)${typeof figures.materialized === 'string' ? `; materialized columns: ${figures.materialized}` : ''}:`,
    '',
    queriesTable(figures),
    '',
  ]);
  const stores = storesTable(postgres, clickhouse.store, clickhouse.direct, run.options.sizes.at(-1)!);
  say(`\n${tables.join('\n')}\n${stores}`);
  const minutes = Math.round((Date.now() - at.startedAt.getTime()) / 60_000);
  const largest = run.options.sizes.at(-1)!.toLocaleString('en');
  appendFileSync(
    RESULTS_FILE,
    [
      '',
      `## ${at.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC — events on PostgreSQL and ClickHouse (events.bench.ts)`,
      '',
      `Machine: ${machine()}. Code: ${at.code}. Load average (1 min) at the start: ${at.startLoad.toFixed(2)}. The run took ${minutes} min.`,
      `Run with \`npm run bench:events -- --sizes ${run.options.sizes.join(',')} --batch-events ${run.options.batchEvents}\`: the events and the four HogQL queries of`,
      '`../shared/bench/events-queries.md` (event i: `$pageview` or `click`, 5,000 users, a year of timestamps, `$browser`,',
      '`$current_url`, `n`), the same events in both stores: the first through `/batch/` (1,000 a batch, 4 senders), the rest',
      'by SQL straight into each store (`ingestion.events` and `event_ids`; ClickHouse `events` by `INSERT … SELECT FROM numbers()`).',
      'PostgreSQL: the platform with its default workers on a scratch database of the machine\'s server. ClickHouse: the',
      'platform with `CLICKHOUSE_URL=chdb:<dir> WORKERS=1`. Each query is a saved HogQL endpoint run over REST; "engine" is',
      'the SQL the platform printed (its run\'s `hogql`), run directly through `@clickhouse/client` on `chdb/connection` in a',
      `process of its own while the platform is stopped. "mat_ columns": a copy of the events with ${MATERIALIZED_PROPERTIES.map((name) => `\`${name}\``).join(' and ')}`,
      `materialized by \`npm run events:materialize\` ("(JSON)" where the platform's SQL still read the JSON). The export and`,
      `the endpoint ran at ${largest} events; the direct insert took the rows \`/batch/\` took, into a table made like \`events\`.`,
      '',
      ...tables,
      stores,
      '',
    ].join('\n'),
  );
}

runBench(main);
