import { cliProgram, SETTINGS_HELP, UsageError } from '../../../../subgraphs/shared/cli.js';

/** What `npm run events:copy` was asked to do. */
export interface CopyOptions {
  /** The environments to copy, ascending; null for every environment PostgreSQL holds events of. */
  environments: number[] | null;
  pageSize: number;
  /** Where the checkpoint is kept; `$DATA_DIR/events-copy.checkpoint.json` unless given. */
  checkpoint: string | null;
  restart: boolean;
}

/** The command line as commander reads it: strings, checked by copyOptions. */
export interface CopyArguments {
  environment?: string[];
  all?: boolean;
  pageSize: string;
  checkpoint?: string;
  restart?: boolean;
}

const MAX_PAGE_SIZE = 100_000;

export const copyProgram = cliProgram(
  'npm run events:copy --',
  "Copies events from PostgreSQL (DATABASE_URL, or the embedded database in DATA_DIR) to the ClickHouse of " +
    'CLICKHOUSE_URL, whose migrations it runs first: one environment, several, or all. Events ClickHouse holds already ' +
    "are left out. A checkpoint keeps each environment's last event copied: after a stop or a crash the same command " +
    "goes on from it. After an environment's events, its persons, distinct ids and groups are written into ClickHouse's " +
    "mirror tables as PostgreSQL holds them. At the end, each environment's count of events in ClickHouse is checked against PostgreSQL's. " +
    'Progress goes to stderr, one JSON summary to stdout.\n\n' +
    'Exit status: 0 copied and counted alike, 1 an error or a count that differs, 2 a mistake in the call, 130 interrupted.',
)
  .option('--environment <id>', 'an environment to copy (repeat it, or give ids separated by commas)', (value: string, previous: string[] = []) => [...previous, value])
  .option('--all', 'copy every environment PostgreSQL holds events of')
  .option('--page-size <n>', `events read and inserted together (at most ${MAX_PAGE_SIZE})`, '10000')
  .option('--checkpoint <path>', 'the checkpoint file (default: $DATA_DIR/events-copy.checkpoint.json)')
  .option('--restart', 'forget the checkpoint and copy from the first event again (what ClickHouse holds is still left out)')
  .addHelpText('after', SETTINGS_HELP);

/** The call checked: a mistake is a UsageError, before any setting is read or anything is opened. */
export function copyOptions(values: CopyArguments): CopyOptions {
  const ids = (values.environment ?? []).flatMap((value) => value.split(',')).map((value) => value.trim());
  if (values.all && ids.length > 0) throw new UsageError('give --environment or --all, not both');
  if (!values.all && ids.length === 0) throw new UsageError('name the environments to copy (--environment <id>) or --all');
  const bad = ids.find((id) => !/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2 ** 31 - 1);
  if (bad !== undefined) throw new UsageError(`--environment must be an environment id (a whole number), not ${JSON.stringify(bad)}`);
  const pageSize = Number(values.pageSize);
  if (!/^\d+$/.test(values.pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new UsageError(`--page-size must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return {
    environments: values.all ? null : [...new Set(ids.map(Number))].sort((a, b) => a - b),
    pageSize,
    checkpoint: values.checkpoint ?? null,
    restart: values.restart === true,
  };
}
