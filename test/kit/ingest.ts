import { api } from './http.js';
import { sql } from './db.js';
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

export async function eventCount(databaseUrl: string, environmentId: number): Promise<number> {
  const [row] = await sql<{ count: string }>(databaseUrl, 'select count(*) from ingestion.events where environment_id = $1', [environmentId]);
  return Number(row!.count);
}

/** Applies the queued person and group changes now (the worker's next pass). */
export function applyProfiles(stack: Stack): Promise<void> {
  return stack.subgraphs.workers.ingestion!.drain();
}
