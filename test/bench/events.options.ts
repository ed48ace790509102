import { InvalidArgumentError, Option } from 'commander';
import { cliProgram } from '../../subgraphs/shared/cli.js';

/** How the events bench runs: at which sizes, and how many events of each store come through `/batch/`. */
export interface EventsBenchOptions {
  /** Event counts, ascending: each size adds events to the stores of the size before. */
  sizes: number[];
  /** The first events of each store sent through `/batch/` (measured); the rest go in by SQL. */
  batchEvents: number;
}

/** The sizes of ../shared/bench/events-queries.md, and its million events through `/batch/`. */
const DEFAULTS: EventsBenchOptions = { sizes: [1_000_000, 10_000_000], batchEvents: 1_000_000 };

/** The events bench's command line; `--help` prints the usage, a mistake prints it on stderr and exits 2. */
export function eventsBenchOptions(argv: readonly string[] = process.argv): EventsBenchOptions {
  const program = cliProgram(
    'npm run bench:events --',
    'The four HogQL queries of the events benchmark, live, on the platform with its events on PostgreSQL and on ClickHouse (chDB), side by side with the engine\'s own time for the SQL the platform printed; `/batch/` events/s into each store and a direct @clickhouse/client insert; batch export read rate; a materialized endpoint against its live run. Printed, never asserted.',
  )
    .addOption(new Option('--sizes <list>', 'event counts to measure at, comma-separated, e.g. 100k for a smoke run').argParser(sizeList).default(DEFAULTS.sizes, '1m,10m'))
    .option('--batch-events <n>', 'events of each store sent through /batch/ (capped at the largest size); the rest go in by SQL', count, DEFAULTS.batchEvents)
    .addHelpText(
      'after',
      '\nThe platforms run on scratch databases of the PostgreSQL at 127.0.0.1:5432 (BENCH_DATABASE_URL for another) and a\nscratch chDB directory. A smoke run: --sizes 100k. The figures are printed as Markdown tables for test/bench/RESULTS.md.',
    );
  program.parse(argv);
  const options = program.opts<EventsBenchOptions>();
  return { ...options, batchEvents: Math.min(options.batchEvents, options.sizes.at(-1)!) };
}

/** `100k`, `1m`, `2500000`: a whole number of events, 1,000 or more. */
function size(value: string): number {
  const match = /^(\d+)([km]?)$/i.exec(value.trim());
  const events = match ? Number(match[1]) * { '': 1, k: 1_000, m: 1_000_000 }[match[2]!.toLowerCase() as '' | 'k' | 'm'] : Number.NaN;
  if (!(events >= 1_000)) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a size: a whole number of events of 1,000 or more, e.g. 100k, 1m or 2500000`);
  return events;
}

function sizeList(value: string): number[] {
  return [...new Set(value.split(',').map(size))].sort((a, b) => a - b);
}

function count(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('a whole number of events, 0 or more');
  return Number(value);
}
