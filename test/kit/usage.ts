import { expect } from 'vitest';
import { runCli } from './process.js';

/** A line of a Node.js stack trace: what a command must never print for a mistake in its call. */
const STACK_FRAME = /^\s+at /m;

/**
 * Runs the command once for each mistaken call, all at once, before it reads a setting: each exits
 * 2 with nothing on standard output, and standard error matches the mistake's line and usage, with
 * no stack trace.
 */
export async function expectUsageMistakes(script: string, mistakes: readonly (readonly [readonly string[], RegExp])[]): Promise<void> {
  const runs = await Promise.all(mistakes.map(([args]) => runCli(script, [...args], {})));
  runs.forEach((run, index) => {
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(mistakes[index]![1]);
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });
}
