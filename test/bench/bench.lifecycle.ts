import { constants } from 'node:os';
import type { BenchChild } from './child.process.js';
import { failed, type LoadFigures } from './load.runner.js';

/**
 * Runs a benchmark's `main` once; whichever way it ends (success, failure, SIGINT/SIGTERM/SIGHUP),
 * the undo steps registered with `onExit` run last-in first-out, once, and the process exits.
 */
export function runBench(main: () => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      process.stderr.write(`\n${signal}: stopping the servers and dropping the scratch database…\n`);
      void cleanUp().finally(() => process.exit(128 + constants.signals[signal]));
    });
  }
  main()
    .then(cleanUp, async (error: unknown) => {
      process.stderr.write(`\nbench failed: ${(error as Error).message ?? String(error)}\n`);
      await cleanUp();
      process.exitCode = 1;
    })
    .finally(() => process.exit());
}

const undo: Array<() => unknown> = [];
let cleaning: Promise<void> | undefined;

/** Registers a step that undoes what was just set up (stop a child, drop a database). */
export function onExit(step: () => unknown): void {
  undo.push(step);
}

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of undo.reverse()) {
      await Promise.resolve()
        .then(step)
        .catch((error: unknown) => process.stderr.write(`clean-up step failed: ${(error as Error).message}\n`));
    }
  })();
  return cleaning;
}

export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** What a run saw besides clean 2xx answers, with a few of the bodies, or nothing. */
export function describeFailure(name: string, figures: LoadFigures): string[] {
  if (!failed(figures)) return [];
  const counts = `${name}: ${figures.non2xx} non-2xx, ${figures.errors} connection errors (${figures.timeouts} timeouts), ${figures.badBodies} bad bodies of ${figures.requests}`;
  return [counts, ...figures.samples.map((sample) => `  e.g. ${sample}`)];
}

/** Errors the servers logged during the run: a defect under load even when every answer was 2xx. */
export function reportLoggedErrors(children: BenchChild[]): void {
  for (const child of children) {
    if (child.errorLines.length === 0) continue;
    say(`\n${child.label} logged ${child.errorLines.length} error line(s); the first:`);
    for (const line of child.errorLines.slice(0, 3)) say(`  ${line.slice(0, 1000)}`);
  }
}
