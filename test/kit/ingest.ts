import { api } from './http.js';
import { storedEvents } from './events-store.js';
import type { Stack } from './stack.js';

const DAY_MS = 86_400_000;

/** An ISO time `days` days ago (and `ms` more): old enough for a historical import by default. */
export function daysAgo(days = 5, ms = 0): string {
  return new Date(Date.now() - days * DAY_MS - ms).toISOString();
}

/** A PostHog-shaped event with a uuid of its own. */
export function anEvent(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { event: '$pageview', distinct_id: 'user-1', timestamp: daysAgo(), uuid: crypto.randomUUID(), properties: { $current_url: 'https://example.com/' }, ...fields };
}

/** POST `/batch/` on the stack's ingest listener: an object is sent as JSON, a string or Buffer as it is. */
export async function postBatch(stack: Stack, body: unknown, headers: Record<string, string> = {}, query = '') {
  if (Buffer.isBuffer(body)) {
    const response = await fetch(`${stack.ingestUrl}/batch/${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body) });
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }
  return api(stack.ingestUrl, 'POST', `/batch/${query}`, { body, headers });
}

/** How many event rows the environment's store holds (a duplicate counts twice). */
export async function eventCount(databaseUrl: string, environmentId: number): Promise<number> {
  return (await storedEvents(databaseUrl, environmentId)).length;
}

/** Applies the queued person and group changes now (the worker's next pass). */
export function applyProfiles(stack: Stack): Promise<void> {
  return stack.subgraphs.workers.ingestion!.drain();
}
