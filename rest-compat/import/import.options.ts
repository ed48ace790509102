import { parseArgs } from 'node:util';

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

export class UsageError extends Error {}

export const USAGE = `usage: npm run import -- --file events.jsonl[.gz] --token phc_… [--host URL]
  [--batch-size 1000] [--max-batch-bytes 8388608] [--concurrency 4] [--checkpoint FILE] [--rejects FILE]
  [--retry-for-seconds 600]`;

/** The command line, checked: a bad or missing option is a UsageError naming it. */
export function importOptions(argv: string[]): ImportOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      file: { type: 'string' },
      token: { type: 'string' },
      host: { type: 'string', default: 'http://127.0.0.1:8000' },
      'batch-size': { type: 'string', default: '1000' },
      'max-batch-bytes': { type: 'string', default: String(8 * 1024 * 1024) },
      concurrency: { type: 'string', default: '4' },
      checkpoint: { type: 'string' },
      rejects: { type: 'string' },
      'retry-for-seconds': { type: 'string', default: '600' },
    },
    strict: true,
  });
  if (!values.file) throw new UsageError('--file is required');
  if (!values.token || !/^phc_\S+$/.test(values.token)) throw new UsageError('--token must be a project API key (phc_…)');
  let host: URL;
  try {
    host = new URL(values.host!);
  } catch {
    throw new UsageError(`--host is not a URL: ${values.host}`);
  }
  if (host.protocol !== 'http:' && host.protocol !== 'https:') throw new UsageError('--host must be http: or https:');
  return {
    file: values.file,
    token: values.token,
    host: host.toString().replace(/\/$/, ''),
    batchSize: positive(values['batch-size']!, '--batch-size', 100_000),
    maxBatchBytes: positive(values['max-batch-bytes']!, '--max-batch-bytes', 20 * 1024 * 1024),
    concurrency: positive(values.concurrency!, '--concurrency', 64),
    checkpoint: values.checkpoint ?? `${values.file}.checkpoint.json`,
    rejects: values.rejects ?? `${values.file}.rejects.jsonl`,
    retryForMs: positive(values['retry-for-seconds']!, '--retry-for-seconds', 86_400) * 1000,
  };
}

function positive(value: string, name: string, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > max) throw new UsageError(`${name} must be a whole number from 1 to ${max}`);
  return number;
}
