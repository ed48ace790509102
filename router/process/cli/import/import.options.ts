import { cliProgram, UsageError } from '../../../../subgraphs/shared/cli.js';

/** What `npm run import` was asked to do. */
export interface ImportOptions {
  file: string;
  token: string;
  /** The `{ingest_url}`: `/batch/` is posted there. */
  host: string;
  batchSize: number;
  /** Largest batch body in bytes (under the server's 20 MB). */
  maxBatchBytes: number;
  /** Batches in flight at once. */
  concurrency: number;
  checkpoint: string;
  rejects: string;
  /** How long to keep retrying a batch the server cannot take (network, 5xx, 429) before giving up. */
  retryForMs: number;
}

/** The command line as commander reads it: strings, checked by importOptions. */
export interface ImportArguments {
  file?: string;
  token?: string;
  host: string;
  batchSize: string;
  maxBatchBytes: string;
  concurrency: string;
  checkpoint?: string;
  rejects?: string;
  retryForSeconds: string;
}

export const importProgram = cliProgram(
  'npm run import --',
  'Sends a JSON-lines export (events.jsonl or events.jsonl.gz) to /batch/. Progress goes to stderr, one JSON ' +
    'summary to stdout. Ctrl-C stops after the batches in flight and keeps the checkpoint; the same command goes ' +
    'on from it.\n\nExit status: 0 done, 1 stopped by an error, 2 a mistake in the call, 130 interrupted.',
)
  .option('--file <path>', 'the export to send (required)')
  .option('--token <phc_…>', "the destination project's API key (required)")
  .option('--host <url>', 'the ingest URL /batch/ is posted to', 'http://127.0.0.1:8000')
  .option('--batch-size <n>', 'events per batch (at most 100000)', '1000')
  .option('--max-batch-bytes <n>', 'largest batch body in bytes (at most 20 MiB)', String(8 * 1024 * 1024))
  .option('--concurrency <n>', 'batches in flight at once (at most 64)', '4')
  .option('--checkpoint <path>', 'where progress is kept (default: FILE.checkpoint.json)')
  .option('--rejects <path>', 'where refused lines are written (default: FILE.rejects.jsonl)')
  .option('--retry-for-seconds <n>', 'how long to retry a batch the server cannot take (network, 5xx, 429)', '600');

/** The command line, checked: a bad or missing option is a UsageError naming it. */
export function importOptions(values: ImportArguments): ImportOptions {
  if (!values.file) throw new UsageError('--file is required');
  if (!values.token || !/^phc_\S+$/.test(values.token)) throw new UsageError('--token must be a project API key (phc_…)');
  let host: URL;
  try {
    host = new URL(values.host);
  } catch {
    throw new UsageError(`--host is not a URL: ${values.host}`);
  }
  if (host.protocol !== 'http:' && host.protocol !== 'https:') throw new UsageError('--host must be http: or https:');
  return {
    file: values.file,
    token: values.token,
    host: host.toString().replace(/\/$/, ''),
    batchSize: positive(values.batchSize, '--batch-size', 100_000),
    maxBatchBytes: positive(values.maxBatchBytes, '--max-batch-bytes', 20 * 1024 * 1024),
    concurrency: positive(values.concurrency, '--concurrency', 64),
    checkpoint: values.checkpoint ?? `${values.file}.checkpoint.json`,
    rejects: values.rejects ?? `${values.file}.rejects.jsonl`,
    retryForMs: positive(values.retryForSeconds, '--retry-for-seconds', 86_400) * 1000,
  };
}

function positive(value: string, name: string, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > max) throw new UsageError(`${name} must be a whole number from 1 to ${max}`);
  return number;
}
