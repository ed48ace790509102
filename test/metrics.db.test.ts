import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listenMetrics } from '../subgraphs/shared/metrics.listener.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { api, gql } from './kit/http.js';
import { anEvent, applyProfiles, postBatch } from './kit/ingest.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';
import { collect, wsClient } from './kit/ws.js';

let stack: Stack;
let owner: Tenant;
let metricsUrl: string;
let closeMetrics: () => Promise<void>;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  owner = await seedTenant(inject('databaseUrl'), 'metrics');
  const listener = await listenMetrics({ host: '127.0.0.1', port: 0, log: createLogger('silent') });
  metricsUrl = `${listener.url}/metrics`;
  closeMetrics = listener.close;
});
afterAll(async () => {
  await closeMetrics?.();
  await stack?.stop();
});

/** One sample of the scraped text: its value, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((found) => [found[1], found[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe('Prometheus metrics on METRICS_PORT', () => {
  it('count requests by transport, operation and status, with durations, subgraph calls, pools, ingestion and subscriptions', async () => {
    // The registry is the process's: counters are read as what this test added to them, as files
    // that ran before in this process counted their own requests too.
    const before = await (await fetch(metricsUrl)).text();
    const added = (text: string, name: string, labels: Record<string, string>) => (sample(text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    const path = `/api/environments/${owner.environment_id}/customer_profile_configs/`;
    expect((await api(stack.url, 'POST', path, { key: owner.personal_api_key, body: { scope: 'person' } })).status).toBe(201);
    expect((await api(stack.url, 'GET', path, { key: owner.personal_api_key })).status).toBe(200);
    expect((await api(stack.url, 'GET', path)).status).toBe(401);
    const query = await gql(stack.graphqlUrl, 'query ($p: Int!) { customer_profile_configs(project_id: $p) { count results { project { name } } } }', { p: owner.environment_id }, owner.personal_api_key);
    expect(query.errors).toBeUndefined();
    expect((await postBatch(stack, { api_key: owner.project_api_key, historical_migration: true, batch: [anEvent(), anEvent({ event: '$identify', properties: { $set: { plan: 'pro' } } })] })).status).toBe(200);
    await applyProfiles(stack);
    const client = wsClient(stack.wsUrl, owner.personal_api_key);
    const changes = collect(client, 'subscription ($p: Int!) { customer_profile_config_changed(project_id: $p) { sequence } }', { p: owner.environment_id });
    try {
      await expect.poll(async () => sample(await (await fetch(metricsUrl)).text(), 'analytics_subscriptions_active'), { timeout: 10_000 }).toBe(1);
      const text = await (await fetch(metricsUrl)).text();
      expect(added(text, 'analytics_requests_total', { transport: 'rest', operation: 'Query.customer_profile_configs', status: '200' })).toBeGreaterThanOrEqual(1);
      expect(added(text, 'analytics_requests_total', { transport: 'rest', operation: 'Query.customer_profile_configs', status: '401' })).toBeGreaterThanOrEqual(1);
      expect(added(text, 'analytics_requests_total', { transport: 'graphql', operation: 'query customer_profile_configs', status: '200' })).toBe(1);
      // The REST layer's own calls of the router are REST requests, not GraphQL ones.
      expect(added(text, 'analytics_requests_total', { transport: 'graphql', operation: 'query customer_profile_configs', status: '401' })).toBe(0);
      expect(added(text, 'analytics_requests_total', { transport: 'ingest', operation: 'batch', status: '200' })).toBeGreaterThanOrEqual(1);
      expect(added(text, 'analytics_request_duration_seconds_count', { transport: 'rest', operation: 'Query.customer_profile_configs' })).toBeGreaterThanOrEqual(2);
      expect(added(text, 'analytics_subgraph_call_duration_seconds_count', { subgraph: 'customer-profiles' })).toBeGreaterThanOrEqual(1);
      expect(added(text, 'analytics_subgraph_call_duration_seconds_count', { subgraph: 'projects' })).toBeGreaterThanOrEqual(1);
      expect(added(text, 'analytics_ingested_events_total', { outcome: 'stored' })).toBeGreaterThanOrEqual(2);
      expect(sample(text, 'analytics_ingest_batches_waiting')).toBe(0);
      expect(sample(text, 'analytics_profile_updates_pending')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'analytics_db_pool_connections', { subgraph: 'accounts', state: 'free' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'analytics_websocket_connections')).toBe(1);
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    } finally {
      changes.dispose();
      await client.dispose();
    }
  });

  it('is not on the public listener', async () => {
    expect((await fetch(`${stack.url}/metrics`)).status).toBe(404);
  });
});
