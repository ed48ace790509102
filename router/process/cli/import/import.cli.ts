import { runCommand } from '../../../../subgraphs/shared/cli.js';
import { ImportAbort } from './batch.sender.js';
import { CheckpointMismatch } from './import.checkpoint.js';
import { importOptions, importProgram, type ImportArguments } from './import.options.js';
import { Importer } from './import.runner.js';

/**
 * `npm run import -- --file events.jsonl[.gz] --token phc_… [--host URL]`: a managed migration
 * from a JSON-lines export (API document 4.9 rule 6). Progress goes to standard error; standard
 * output gets one JSON summary. Ctrl-C stops after the batches in flight and keeps the checkpoint;
 * running the same command again goes on from it.
 */
async function main(values: ImportArguments): Promise<number> {
  const importer = new Importer(importOptions(values));
  // Until main says otherwise: an import whose work drained away without an answer did not succeed.
  process.exitCode = 1;
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

runCommand(importProgram, 'import failed', main);
