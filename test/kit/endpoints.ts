import { expect } from 'vitest';
import { api } from './http.js';
import { applyProfiles, postBatch } from './ingest.js';
import type { Tenant } from './seed.js';
import type { Stack } from './stack.js';

/** `/api/<environments|projects>/:id/endpoints[/rest]/`. */
export const endpointsPath = (owner: Pick<Tenant, 'environment_id'>, rest = '', prefix: 'environments' | 'projects' = 'environments') =>
  `/api/${prefix}/${owner.environment_id}/endpoints/${rest ? `${rest}/` : ''}`;

export const hogql = (query: string, variables?: Record<string, unknown>) => ({ kind: 'HogQLQuery', query, ...(variables ? { variables } : {}) });

/**
 * The data set the HogQL table runs on: three people (two identified, with emails and plans), two
 * companies, and events on fixed days of January and February 2026.
 */
export const SEED_EVENTS = [
  { event: '$identify', distinct_id: 'u1', timestamp: '2026-01-05T10:00:00Z', properties: { $set: { email: 'ada@example.com', plan: 'pro' } } },
  { event: '$identify', distinct_id: 'u2', timestamp: '2026-01-05T11:40:00Z', properties: { $set: { email: 'bob@example.com', plan: 'free' } } },
  { event: '$pageview', distinct_id: 'u1', timestamp: '2026-01-05T10:15:00Z', properties: { $browser: 'Chrome', $pathname: '/home', amount: 10 } },
  { event: '$pageview', distinct_id: 'u1', timestamp: '2026-01-05T11:20:00Z', properties: { $browser: 'Chrome', $pathname: '/pricing', amount: 20 } },
  { event: '$pageview', distinct_id: 'u2', timestamp: '2026-01-05T11:45:00Z', properties: { $browser: 'Firefox', $pathname: '/home' } },
  { event: 'signed_up', distinct_id: 'u2', timestamp: '2026-01-06T09:00:00Z', properties: { $browser: 'Firefox', plan: 'free', nested: { level: 'deep' } } },
  { event: '$pageview', distinct_id: 'u3', timestamp: '2026-01-06T12:30:00Z', properties: { $browser: 'Safari', $pathname: '/docs' } },
  { event: 'purchase', distinct_id: 'u1', timestamp: '2026-01-07T15:00:00Z', properties: { $browser: 'Chrome', amount: 99.5, currency: 'USD', paid: true } },
  { event: 'purchase', distinct_id: 'u2', timestamp: '2026-01-12T08:00:00Z', properties: { $browser: 'Firefox', amount: 15, currency: 'EUR', paid: false } },
  { event: '$pageview', distinct_id: 'u3', timestamp: '2026-01-12T09:10:00Z', properties: { $browser: 'Safari', $pathname: '/home' } },
  { event: '$pageview', distinct_id: 'u1', timestamp: '2026-02-02T10:00:00Z', properties: { $browser: 'Chrome', $pathname: '/home' } },
  {
    event: '$groupidentify',
    distinct_id: 'u1',
    timestamp: '2026-01-05T10:05:00Z',
    properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', employees: 50 } },
  },
  {
    event: '$groupidentify',
    distinct_id: 'u2',
    timestamp: '2026-01-05T11:41:00Z',
    properties: { $group_type: 'company', $group_key: 'globex', $group_set: { name: 'Globex', employees: 7 } },
  },
];

/** Sends events to a tenant's environment through `/batch/` and applies the person and group changes. */
export async function ingest(stack: Stack, owner: Tenant, events: Record<string, unknown>[]): Promise<void> {
  const response = await postBatch(stack, { api_key: owner.project_api_key, historical_migration: true, batch: events.map((event) => ({ uuid: crypto.randomUUID(), ...event })) });
  expect(response.status, response.text).toBe(200);
  await applyProfiles(stack);
}

/** Creates an endpoint through REST (201 expected) and answers its record. */
export async function createEndpoint(stack: Stack, owner: Tenant, body: Record<string, unknown>, key = owner.personal_api_key): Promise<any> {
  const response = await api(stack.url, 'POST', endpointsPath(owner), { key, body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Runs an endpoint through REST (POST) and answers the response. */
export function runEndpoint(stack: Stack, owner: Tenant, name: string, body: Record<string, unknown> = {}, key = owner.personal_api_key) {
  return api(stack.url, 'POST', endpointsPath(owner, `${name}/run`), { key, body });
}
