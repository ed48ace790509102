import type { JsonObject } from '../../../shared/validation.js';
import type { ExportPage } from '../../formats/export-columns.js';
import { jsonLinesEncoder } from '../../formats/jsonlines.encoder.js';
import { DestinationError, type Delivery, type DeliveryContext } from '../destination.js';
import { answered, captureBody, post } from './http.post.js';

/** PostHog's flush points: 5,000 records or 50 MB a request. */
const CHUNK_RECORDS = 5000;
const CHUNK_BYTES = 50 * 1024 * 1024;
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

/** Sends a chunk, trying again (1 s, then 2 s) on 429, 5xx and the network; another answer ends the run with its status. */
async function send(config: JsonObject, body: string, idempotencyKey: string, signal: AbortSignal): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let failure: DestinationError;
    try {
      const status = await post(config, body, idempotencyKey, signal);
      if (status < 300) return;
      const retryable = status === 429 || status >= 500;
      failure = new DestinationError(`${retryable ? 'RetryableResponseError' : 'NonRetryableResponseError'} (status: ${status}): ${answered(status)}.`, retryable);
    } catch (error) {
      if (!(error instanceof DestinationError)) throw error;
      failure = error;
    }
    if (!failure.retryable || attempt >= TRIES || signal.aborted) throw failure;
    await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (attempt - 1)));
  }
}
