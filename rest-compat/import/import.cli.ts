import { ImportAbort } from './batch.sender.js';
import { CheckpointMismatch } from './import.checkpoint.js';
import { importOptions, USAGE, UsageError } from './import.options.js';
import { Importer } from './import.runner.js';

/**
 * `npm run import -- --file events.jsonl[.gz] --token phc_… [--host URL]`: a managed migration
 * from a JSON-lines export (API document 4.9 rule 6). Progress goes to standard error; standard
 * output gets one JSON summary. Ctrl-C stops after the batches in flight and keeps the checkpoint;
 * running the same command again goes on from it.
 */
async function main(): Promise<number> {
  // Until main says otherwise: an import whose work drained away without an answer did not succeed.
  process.exitCode = 1;
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let importer: Importer;
  try {
    importer = new Importer(importOptions(argv));
  } catch (error) {
    if (!(error instanceof UsageError) && (error as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw error;
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: finishing the batches in flight, then saving the checkpoint…\n`);
      importer.stop();
    });
  }
  try {
    const summary = await importer.run();
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return summary.stopped ? 130 : 0;
  } catch (error) {
    if (error instanceof ImportAbort || error instanceof CheckpointMismatch || (error as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`import stopped: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`import failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
