/** An event of a batch: the file line it came from and its JSON. */
export interface LineEvent {
  line: number;
  json: string;
}

/** A line the server or the importer would not take, and why. */
export interface Reject {
  line: number;
  reason: string;
}

/** The import cannot go on (the key was refused, the host is no ingestion endpoint, the server stayed away). */
export class ImportAbort extends Error {}

export interface SenderOptions {
  url: string;
  token: string;
  retryForMs: number;
  /** Told when a retry starts and when the batch goes through. */
  onRetry?: (retrying: boolean, why: string) => void;
}

const FIRST_DELAY_MS = 500;
/** A 500 is the server's defect, not a passing state: after this many the batch is split to find the event behind it. */
const TRIES_ON_500 = 3;
const MAX_DELAY_MS = 30_000;
const REQUEST_TIMEOUT_MS = 120_000;

/** Events sent together; `suspect` once an event of theirs was refused by name. */
interface Part {
  events: LineEvent[];
  suspect: boolean;
}

/**
 * Delivers one batch, in order: `historical_migration` set, retried with backoff while the network
 * or the server is away (network, 502-504, 429), for up to `retryForMs`. A 400 naming an event
 * rejects that event; the events before it (which passed the rules) go again, and so do the ones
 * after it, in halves if a second event was refused by name, so that a batch of many bad lines
 * costs a logarithmic number of sends, not one per line. A 400 naming none, a 413, or a 500 that
 * does not pass splits the batch in halves until the event at fault is alone, and rejects it with
 * the server's words. A retried batch stores nothing twice: the server knows its events by uuid.
 * Answers the rejects; throws ImportAbort when the import cannot go on.
 */
export async function deliver(events: LineEvent[], options: SenderOptions): Promise<Reject[]> {
  const rejects: Reject[] = [];
  const parts: Part[] = events.length > 0 ? [{ events, suspect: false }] : [];
  while (parts.length > 0) {
    const { events: part, suspect } = parts.shift()!;
    const { status, body } = await postWithRetry(part, options);
    if (status === 200) continue;
    if (status === 401 || status === 403) throw new ImportAbort(`the server refused the project API key: ${body.detail ?? status}`);
    const index = Number(/^batch__(\d+)(__|$)/.exec(String(body.attr ?? ''))?.[1] ?? NaN);
    if (status === 400 && index < part.length) {
      rejects.push({ line: part[index]!.line, reason: `${body.code}: ${body.detail}` });
      const after = part.slice(index + 1);
      const rest = suspect && after.length > 1 ? halves(after) : [after];
      parts.unshift(...[part.slice(0, index), ...rest].filter((events) => events.length > 0).map((events) => ({ events, suspect: true })));
    } else if (status === 400 || status === 413 || status === 500) {
      if (part.length === 1) rejects.push({ line: part[0]!.line, reason: `${body.code ?? status}: ${body.detail ?? 'refused'}` });
      else parts.unshift(...halves(part).map((events) => ({ events, suspect })));
    } else {
      throw new ImportAbort(`${options.url} answered ${status}${body.detail ? `: ${body.detail}` : ''} (is --host the platform's ingest address?)`);
    }
  }
  return rejects;
}

async function postWithRetry(part: LineEvent[], options: SenderOptions): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = `{"api_key":${JSON.stringify(options.token)},"historical_migration":true,"batch":[${part.map((event) => event.json).join(',')}]}`;
  const started = Date.now();
  let failures500 = 0;
  for (let attempt = 0; ; attempt++) {
    let why: string;
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      if (response.status === 500) failures500++;
      if ((response.status < 500 && response.status !== 429) || failures500 >= TRIES_ON_500) {
        if (attempt > 0) options.onRetry?.(false, 'delivered');
        return { status: response.status, body: parsed(text) };
      }
      why = `${response.status} ${text.slice(0, 200)}`;
    } catch (error) {
      why = (error as Error).cause ? String((error as { cause: Error }).cause.message ?? (error as Error).cause) : (error as Error).message;
    }
    if (Date.now() - started > options.retryForMs) throw new ImportAbort(`gave up on a batch after ${Math.round((Date.now() - started) / 1000)} s: ${why}`);
    options.onRetry?.(true, why);
    await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt)));
  }
}

function halves(events: LineEvent[]): LineEvent[][] {
  const middle = Math.ceil(events.length / 2);
  return [events.slice(0, middle), events.slice(middle)];
}

function parsed(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
