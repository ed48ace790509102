import cluster from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics: one registry that every part records into (the listener, the
 * REST layer, the router, the subgraphs' pools, ingestion), served as text on METRICS_PORT. Labels
 * are bounded: operations are route fields and root fields of the schema, never values a caller
 * chooses freely.
 */
export const metrics = new Registry();
collectDefaultMetrics({ register: metrics });
// A cluster worker answers the primary's requests for this registry over prom-client's IPC; an
// aggregator made in the worker is what adds prom-client's listener for them.
if (cluster.isWorker) {
  AggregatorRegistry.setRegistries([metrics]);
  new AggregatorRegistry();
}

/**
 * The metrics of every worker of this primary, summed per series (gauges that every worker reads
 * from the database, the same number, are taken once: `aggregator: 'max'`).
 */
export function clusterMetrics(): { text: () => Promise<string>; contentType: string } {
  const aggregator = new AggregatorRegistry();
  return { text: () => aggregator.clusterMetrics(), contentType: aggregator.contentType };
}

/** Seconds, from a millisecond to a minute. */
const DURATIONS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Requests by transport (`graphql`, `rest`, `ingest`), operation and HTTP status. */
export const requestsTotal = new Counter({
  name: 'analytics_requests_total',
  help: 'Requests answered, by transport, operation and HTTP status.',
  labelNames: ['transport', 'operation', 'status'] as const,
  registers: [metrics],
});

export const requestDuration = new Histogram({
  name: 'analytics_request_duration_seconds',
  help: 'Time from a request to its answer, by transport and operation.',
  labelNames: ['transport', 'operation'] as const,
  buckets: DURATIONS,
  registers: [metrics],
});

export const subgraphCallDuration = new Histogram({
  name: 'analytics_subgraph_call_duration_seconds',
  help: "The router's calls of each subgraph (in process or over HTTP).",
  labelNames: ['subgraph'] as const,
  buckets: DURATIONS,
  registers: [metrics],
});

export const ingestedEvents = new Counter({
  name: 'analytics_ingested_events_total',
  help: 'Events taken by /batch/: stored, duplicates of stored ones, dropped by the environment\'s restrictions (events/s: rate()).',
  labelNames: ['outcome'] as const,
  registers: [metrics],
});

export const ingestQueue = new Gauge({
  name: 'analytics_ingest_batches_waiting',
  help: 'Batches read and waiting for their turn to be written.',
  registers: [metrics],
});

const profileSources = new Set<() => Promise<number>>();

/** Reports how many person and group changes wait to be applied (a query, asked at each scrape) until it is forgotten. */
export function watchProfileQueue(source: () => Promise<number>): () => void {
  profileSources.add(source);
  return () => profileSources.delete(source);
}

new Gauge({
  name: 'analytics_profile_updates_pending',
  help: 'Person and group changes queued by batches and not yet applied.',
  registers: [metrics],
  aggregator: 'max',
  async collect() {
    let pending = 0;
    for (const source of profileSources) pending += await source().catch(() => 0);
    this.set(pending);
  },
});

/** Records one answered request. */
export function recordRequest(transport: string, operation: string, status: number, startedAt: number): void {
  requestsTotal.inc({ transport, operation, status: String(status) });
  requestDuration.observe({ transport, operation }, (performance.now() - startedAt) / 1000);
}

/** What a connection pool says of itself (tarn, as knex and so MikroORM use it). */
export interface PoolState {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

const pools = new Map<string, PoolState>();

/** Reports a subgraph's database pool (used, free, and acquisitions waiting) until it is forgotten. */
export function watchPool(name: string, pool: PoolState): () => void {
  pools.set(name, pool);
  return () => {
    if (pools.get(name) === pool) pools.delete(name);
  };
}

new Gauge({
  name: 'analytics_db_pool_connections',
  help: "Each subgraph's database connections: in use, idle, and callers waiting for one.",
  labelNames: ['subgraph', 'state'] as const,
  registers: [metrics],
  collect() {
    this.reset();
    for (const [name, pool] of pools) {
      this.set({ subgraph: name, state: 'used' }, pool.numUsed());
      this.set({ subgraph: name, state: 'free' }, pool.numFree());
      this.set({ subgraph: name, state: 'waiting' }, pool.numPendingAcquires());
    }
  },
});

const subscriptionSources = new Set<() => { connections: number; subscriptions: number }>();

/** Reports the graphql-ws connections of a listener, and their subscriptions, until it is forgotten. */
export function watchSubscriptions(source: () => { connections: number; subscriptions: number }): () => void {
  subscriptionSources.add(source);
  return () => subscriptionSources.delete(source);
}

new Gauge({
  name: 'analytics_websocket_connections',
  help: 'graphql-ws connections open on the public listener.',
  registers: [metrics],
  collect() {
    this.set([...subscriptionSources].reduce((sum, source) => sum + source().connections, 0));
  },
});

new Gauge({
  name: 'analytics_subscriptions_active',
  help: 'Subscriptions running on those connections.',
  registers: [metrics],
  collect() {
    this.set([...subscriptionSources].reduce((sum, source) => sum + source().subscriptions, 0));
  },
});
