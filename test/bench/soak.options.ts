import { InvalidArgumentError } from 'commander';
import { cliProgram } from '../../subgraphs/shared/cli.js';

/** How the soak runs: for how long, and at what share of the measured peak. */
export interface SoakOptions {
  minutes: number;
  share: number;
}

/** Ten minutes at 70% of the peak, as issue 16 asks. */
const DEFAULTS: SoakOptions = { minutes: 10, share: 0.7 };

/** The soak's command line; `--help` prints the usage, a mistake prints it on stderr and exits 2. */
export function soakOptions(argv: readonly string[] = process.argv): SoakOptions {
  const program = cliProgram('npm run bench:soak --', 'Measures the platform\'s peak on a realistic mix, then runs it paced at a share of that peak, sampled every minute.')
    .option('--minutes <n>', 'how long the paced load runs, in whole minutes', wholeNumber, DEFAULTS.minutes)
    .option('--share <fraction>', 'the share of the measured peak the paced load sends, above 0 and at most 1', fraction, DEFAULTS.share)
    .addHelpText('after', '\nThe platform runs on an embedded PostgreSQL in a scratch DATA_DIR, unless BENCH_DATABASE_URL names a server\n(a scratch database is made on it). The table at the end is written to paste into test/bench/RESULTS.md.');
  program.parse(argv);
  return program.opts<SoakOptions>();
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('a whole number of minutes, 1 or more');
  return Number(value);
}

function fraction(value: string): number {
  const share = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || !(share > 0 && share <= 1)) throw new InvalidArgumentError('a fraction above 0 and at most 1, e.g. 0.7');
  return share;
}
