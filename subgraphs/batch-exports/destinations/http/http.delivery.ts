import type { JsonObject } from '../../../shared/validation.js';
import type { ExportPage } from '../../formats/export-columns.js';
import { jsonLinesEncoder } from '../../formats/jsonlines.encoder.js';
import { DestinationError, type Delivery, type DeliveryContext } from '../destination.js';

/** PostHog's flush points: 5,000 records or 50 MB a request. */
const CHUNK_RECORDS = 5000;
const CHUNK_BYTES = 50 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 60_000;
/** Tries of one chunk before the run's own retry (with its backoff) takes over. */
const TRIES = 3;

/**
 * POSTs a run's events in chunks. Chunks are cut the same way on every attempt (the rows come in a
 * fixed order), each carries `Idempotency-Key: <run>-<n>`, and each one the destination accepted
 * is kept with the run: an attempt after a dead one starts at the first chunk not yet accepted,
 * and sends the one that was in flight under the same key (a `/batch/` receiver also knows each
 * event by its uuid and stores it once).
 */
export async function deliverChunks(context: DeliveryContext, pages: AsyncIterable<ExportPage>): Promise<Delivery> {
  const { config } = context;
  const posthog = config.body_format === 'PostHogBatch';
  const encode = jsonLinesEncoder(context.columns);
  const done = { chunks: Number(context.cursor?.chunks ?? 0), records: Number(context.cursor?.records ?? 0), fingerprint: context.fingerprint };
  // Resuming counts rows off: only the rows of the same settings come in the same order.
  if (done.chunks > 0 && context.cursor?.fingerprint !== context.fingerprint) {
    throw new DestinationError(`The export's settings changed after ${done.chunks} chunks of this run were sent: retry the run to send its interval again under the new settings.`, false);
  }
  let skip = done.records;
  let bytes = 0;
  let lines: string[] = [];
  let size = 0;
  let total = 0;
  const flush = async () => {
    if (lines.length === 0) return;
    const body = posthog ? captureBody(String(config.token ?? ''), lines) : lines.join('');
    await send(config, body, `${context.run.id}-${done.chunks}`, context.signal);
    done.chunks += 1;
    done.records += lines.length;
    bytes += Buffer.byteLength(body);
    lines = [];
    size = 0;
    await context.saveCursor({ ...done });
  };
  for await (const page of pages) {
    for (const row of page.rows) {
      total += 1;
      if (skip > 0) {
        skip -= 1;
        continue;
      }
      const line = encode([row]);
      lines.push(line);
      size += line.length;
      if (lines.length >= CHUNK_RECORDS || size >= CHUNK_BYTES) await flush();
    }
  }
  await flush();
  return { records: total, bytes, cursor: { ...done } };
}

/** PostHog's `/batch/` body, as its HTTP export sends it. */
function captureBody(token: string, lines: string[]): string {
  return `{"api_key":${JSON.stringify(token)},"historical_migration":true,"batch":[${lines.map((line) => line.trimEnd()).join(',')}]}`;
}

export interface HttpAnswer {
  status: number;
  text: string;
}

/** One POST of a body (JSON lines, or a `/batch/` body when it starts with `{"api_key"`). */
export async function post(config: JsonObject, body: string, idempotencyKey: string, signal: AbortSignal): Promise<HttpAnswer> {
  const capture = config.body_format === 'PostHogBatch';
  const headers: Record<string, string> = {
    'content-type': capture ? 'application/json' : 'application/x-ndjson',
    'idempotency-key': idempotencyKey,
  };
  if (!capture) headers.authorization = `Bearer ${String(config.token ?? '')}`;
  const payload = capture && body === '' ? captureBody(String(config.token ?? ''), []) : body;
  let response: Response;
  try {
    response = await fetch(String(config.url), { method: 'POST', headers, body: payload, signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]), redirect: 'error' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new DestinationError(`The destination could not be reached: ${cause?.code ?? cause?.message ?? (error as Error).message}`, true);
  }
  return { status: response.status, text: (await response.text().catch(() => '')).slice(0, 500) };
}

/** Sends a chunk, trying again (1 s, then 2 s) on 429, 5xx and the network; another 4xx ends the run with the destination's words. */
async function send(config: JsonObject, body: string, idempotencyKey: string, signal: AbortSignal): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let failure: DestinationError;
    try {
      const answer = await post(config, body, idempotencyKey, signal);
      if (answer.status < 300) return;
      const retryable = answer.status === 429 || answer.status >= 500;
      failure = new DestinationError(`${retryable ? 'RetryableResponseError' : 'NonRetryableResponseError'} (status: ${answer.status}): ${answer.text}`, retryable);
    } catch (error) {
      if (!(error instanceof DestinationError)) throw error;
      failure = error;
    }
    if (!failure.retryable || attempt >= TRIES || signal.aborted) throw failure;
    await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (attempt - 1)));
  }
}
