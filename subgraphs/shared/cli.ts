import { Command, type OptionValues } from 'commander';
import { ConfigError } from './config.js';
import { AppError } from './errors.js';

/** A command called the wrong way: its one-line message, then the usage, go to stderr; exit code 2. */
export class UsageError extends Error {}

/** The end of the help of the commands that read the platform's settings. */
export const SETTINGS_HELP = `
Settings come from environment variables (DATABASE_URL, DATA_DIR, SECRET_KEY, REDIS_URL, LOG_LEVEL, ...),
checked at start-up as \`npm start\` checks them; the README lists them all.`;

/**
 * A command line with the platform's conventions: `-h, --help` prints the help on stdout and
 * exits 0; an unknown option, a missing value, a missing or extra argument prints one line naming
 * it, then the usage, on stderr and exits 2 (a shell script can tell a mistake in its call from a
 * failure of the work). Never a stack trace.
 *
 * @param usageName how a person runs it, e.g. `npm run bootstrap --`; the usage line starts with it.
 */
export function cliProgram(usageName: string, description: string): Command {
  const program = new Command(usageName)
    .description(description)
    .helpOption('-h, --help', 'print this help and exit')
    // Lower case, as the usage lines these commands printed before (scripts grep for `usage:`).
    .configureHelp({ styleTitle: (title) => title.toLowerCase() })
    // The help right under the error line (commander's showHelpAfterError puts a blank line between).
    .configureOutput({ outputError: (message, write) => write(`${withoutInlineValues(message)}${program.helpInformation({ error: true })}`) })
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));
  return program;
}

/**
 * Parses the command line (a mistake exits 2, see cliProgram), then runs `main` with the options
 * and the arguments. A number `main` resolves with is the exit code; nothing leaves the process
 * running (a server). A UsageError it throws is reported as a mistake in the call; any other
 * error is one line on stderr, prefixed with `failure` unless it is a ConfigError or an AppError
 * (their messages are written for the user), and exit code 1.
 */
export function runCommand<Options extends OptionValues>(
  program: Command,
  failure: string,
  main: (options: Options, args: string[]) => Promise<number | void>,
  argv: readonly string[] = process.argv,
): void {
  program.parse(argv);
  main(program.opts<Options>(), program.args).then(
    (code) => {
      if (code !== undefined) process.exit(code);
    },
    (error: unknown) => {
      if (error instanceof UsageError) program.error(`error: ${oneLine(error.message)}`, { exitCode: 2 });
      const known = error instanceof ConfigError || error instanceof AppError;
      process.stderr.write(`${known ? '' : `${failure}: `}${oneLine(describe(error))}\n`);
      process.exit(1);
    },
  );
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(describe).join('; ');
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' ');
}

/**
 * `--pasword=secret` is an unknown option whose text commander quotes whole; the value may be a
 * password, so only the option's name is repeated.
 */
function withoutInlineValues(message: string): string {
  return message.replace(/'(--?[^'=\s]+)=[^']*'/g, "'$1=…'");
}
