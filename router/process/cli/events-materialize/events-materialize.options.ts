import { cliProgram, SETTINGS_HELP, UsageError } from '../../../../subgraphs/shared/cli.js';

/** What `npm run events:materialize` was asked to do. */
export type MaterializeRequest =
  /** List what saved endpoints read, most-read first; change nothing. */
  | { kind: 'suggest' }
  /** Materialize the named properties, then the `top` most-read ones (0: none). */
  | { kind: 'materialize'; properties: string[]; top: number };

/** The command line as commander reads it: strings, checked by materializeRequest. */
export interface MaterializeArguments {
  suggest?: boolean;
  top?: string;
}

const MAX_TOP = 100;

export const materializeProgram = cliProgram(
  'npm run events:materialize --',
  'Makes top-level event properties materialized columns of the ClickHouse events table (CLICKHOUSE_URL), as ' +
    "PostHog's mat_* columns: ClickHouse computes each from the properties on every insert, the command fills it for " +
    'the events stored before (a background mutation, its progress shown), and queries read the column instead of the ' +
    'JSON once it is filled (a running platform within a minute). A property already materialized is left as it is. ' +
    "With --suggest, lists the properties the installation's saved endpoints read, most-read first; --top materializes " +
    'the most-read ones. Progress goes to stderr, one line per property to stdout.\n\n' +
    'Exit status: 0 done, 1 an error, 2 a mistake in the call.',
)
  .argument('[property...]', 'top-level event properties to materialize, e.g. $browser $current_url (quote them for the shell)')
  .option('--suggest', "list the top-level event properties the saved endpoints read, most-read first, and their columns; change nothing")
  .option('--top <n>', `also materialize the n properties the saved endpoints read most (1 to ${MAX_TOP})`)
  .addHelpText('after', SETTINGS_HELP);

/**
 * The call checked: a mistake is a UsageError, before any setting is read or anything is opened.
 * `isProperty` is the events store's rule for a property a column can hold.
 */
export function materializeRequest(values: MaterializeArguments, args: string[], isProperty: (property: string) => boolean): MaterializeRequest {
  const bad = args.find((property) => !isProperty(property));
  if (bad !== undefined) throw new UsageError(`${JSON.stringify(bad)} is not a property name: 1 to 200 characters, no control character`);
  if (values.suggest) {
    if (args.length > 0 || values.top !== undefined) throw new UsageError('--suggest changes nothing: give it alone');
    return { kind: 'suggest' };
  }
  const top = values.top === undefined ? 0 : Number(values.top);
  if (values.top !== undefined && (!/^\d+$/.test(values.top) || top < 1 || top > MAX_TOP)) throw new UsageError(`--top must be a whole number from 1 to ${MAX_TOP}`);
  if (args.length === 0 && top === 0) throw new UsageError('name the properties to materialize, or give --top <n> or --suggest');
  return { kind: 'materialize', properties: [...new Set(args)], top };
}
