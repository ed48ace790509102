import http, { STATUS_CODES } from 'node:http';
import https from 'node:https';
import { outboundAgents } from '../../../shared/outbound-agent.js';
import type { JsonObject } from '../../../shared/validation.js';
import { refusedAddress } from '../destination-address.js';
import { DestinationError } from '../destination.js';

const REQUEST_TIMEOUT_MS = 60_000;

/** PostHog's `/batch/` body, as its HTTP export sends it. */
export function captureBody(token: string, lines: string[]): string {
  return `{"api_key":${JSON.stringify(token)},"historical_migration":true,"batch":[${lines.map((line) => line.trimEnd()).join(',')}]}`;
}

/** What a destination answered, in fixed words: its status, never its body (it may be any server). */
export function answered(status: number): string {
  return `The destination answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
}

/** Kept for the process: chunks of a run reuse their connection. */
let agents: ReturnType<typeof outboundAgents> | undefined;

/** Sends a request through the outbound agents (redirects are not followed) and answers its status; the body is read and dropped. */
function request(url: URL, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<number> {
  const client = url.protocol === 'https:' ? https : http;
  agents ??= outboundAgents();
  const agent = url.protocol === 'https:' ? agents.https : agents.http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent, signal }, (response) => {
      response.on('error', reject);
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.resume();
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** One POST of a body (JSON lines, or a `/batch/` body in PostHogBatch format), answering the status. */
export async function post(config: JsonObject, body: string, idempotencyKey: string, signal: AbortSignal): Promise<number> {
  const capture = config.body_format === 'PostHogBatch';
  const headers: Record<string, string> = {
    'content-type': capture ? 'application/json' : 'application/x-ndjson',
    'idempotency-key': idempotencyKey,
  };
  if (!capture) headers.authorization = `Bearer ${String(config.token ?? '')}`;
  const payload = capture && body === '' ? captureBody(String(config.token ?? ''), []) : body;
  try {
    return await request(new URL(String(config.url)), headers, payload, AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]));
  } catch (error) {
    const refused = refusedAddress(error);
    if (refused) throw refused;
    const { code, message } = error as { code?: string; message?: string };
    throw new DestinationError(`The destination could not be reached: ${code ?? message ?? String(error)}`, true);
  }
}
