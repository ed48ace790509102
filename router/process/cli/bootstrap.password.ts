import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { ReadStream } from 'node:tty';
import { UsageError } from '../../../subgraphs/shared/cli.js';

/** Where a password may come from, as `npm run bootstrap` parsed them. */
export interface PasswordSources {
  /** `--password`, or BOOTSTRAP_PASSWORD when the option is absent (see `fromEnvironment`). */
  password?: string;
  fromEnvironment: boolean;
  passwordFile?: string;
}

/**
 * The first of `--password`, `--password-file` (one trailing newline dropped, as editors and
 * `echo` leave one), BOOTSTRAP_PASSWORD, and a prompt on the terminal with echo off. Without
 * any of them and no terminal to ask on, a UsageError.
 */
export async function bootstrapPassword(sources: PasswordSources): Promise<string> {
  if (sources.password !== undefined && !sources.fromEnvironment) return sources.password;
  if (sources.passwordFile !== undefined) return readFileSync(sources.passwordFile, 'utf8').replace(/\r?\n$/, '');
  if (sources.password !== undefined) return sources.password;
  const typed = await promptHidden('Password: ');
  if (typed === undefined) {
    throw new UsageError('no password: set BOOTSTRAP_PASSWORD, give --password-file PATH, or run it on a terminal to be asked');
  }
  return typed;
}

/**
 * Asks on the terminal (stdin when it is one, else the controlling terminal, as ssh and git do)
 * and reads a line with echo off. Undefined when there is no terminal.
 */
async function promptHidden(question: string): Promise<string | undefined> {
  const input = terminalInput();
  if (!input) return undefined;
  try {
    return await readHidden(input, question);
  } finally {
    say('\n');
    if (input === process.stdin) input.pause();
    else input.destroy();
  }
}

function terminalInput(): ReadStream | undefined {
  if (process.stdin.isTTY) return process.stdin as ReadStream;
  try {
    return new ReadStream(openSync('/dev/tty', 'r'));
  } catch {
    // No controlling terminal (a service, CI, a detached process).
    return undefined;
  }
}

/** To the terminal itself, so that a redirected stderr does not hide the question. */
function say(text: string): void {
  try {
    const fd = openSync('/dev/tty', 'w');
    writeSync(fd, text);
    closeSync(fd);
  } catch {
    process.stderr.write(text);
  }
}

/** One line in raw mode: nothing typed is echoed; backspace edits, Ctrl-C and Ctrl-D give up. */
function readHidden(input: ReadStream, question: string): Promise<string> {
  return new Promise((resolve) => {
    let typed = '';
    const finish = (value: string | null) => {
      input.off('data', onData);
      input.setRawMode(false);
      if (value === null) {
        say('\n');
        process.exit(130);
      }
      resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(typed);
        if (char === '\u0003' || (char === '\u0004' && typed === '')) return finish(null);
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else if (char >= ' ') typed += char;
      }
    };
    // Raw mode first, then the question: what is typed as soon as it shows must not be echoed.
    input.setRawMode(true);
    say(question);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.resume();
  });
}
