import http from 'node:http';
import { postgresDestination } from '../kit/destinations.js';
import { httpRequest } from './http.request.js';
import { percentiles } from './load.runner.js';
import { benchEvent, earliestSecond } from './events.generator.js';
import { BENCH_QUERIES, TREND_QUERY } from './events.queries.js';
import type { Bootstrapped, RunningPlatform } from './platform.fixture.js';

/** The platform's REST API as one account calls it. */
export class BenchApi {
  constructor(
    private readonly platform: RunningPlatform,
    readonly account: Bootstrapped,
  ) {}

  /** A call of the environment's API; a status other than `expected` throws, naming the call. */
  async call<T>(method: string, path: string, body?: unknown, expected = 200): Promise<T> {
    const url = `${this.platform.url}/api/environments/${this.account.environment_id}/${path}`;
    const { status, text } = await httpRequest(url, method, body === undefined ? undefined : Buffer.from(JSON.stringify(body)), { authorization: `Bearer ${this.account.personal_api_key}` });
    if (status !== expected) throw new Error(`${method} ${path}: ${status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  /** Events [from, to) through `/batch/`, `batchSize` a batch from `senders` connections: the time from the first to the last answer. */
  async sendEvents(t0: number, from: number, to: number, { batchSize, senders }: { batchSize: number; senders: number }): Promise<number> {
    const head = `{"api_key":${JSON.stringify(this.account.project_api_key)},"historical_migration":true,"batch":`;
    const bodies: Buffer[] = [];
    for (let start = from; start < to; start += batchSize) {
      const batch = Array.from({ length: Math.min(to, start + batchSize) - start }, (_, offset) => benchEvent(start + offset, t0));
      bodies.push(Buffer.from(`${head}${JSON.stringify(batch)}}`));
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: senders });
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: senders }, async () => {
        while (next < bodies.length) {
          const { status, text } = await httpRequest(`${this.platform.url}/batch/`, 'POST', bodies[next++]!, {}, agent);
          if (status !== 200) throw new Error(`/batch/ answered ${status}: ${text.slice(0, 300)}`);
        }
      }),
    );
    agent.destroy();
    return performance.now() - started;
  }

  /** The benchmark's queries as saved HogQL endpoints, named as the document names them. */
  async createQueryEndpoints(): Promise<void> {
    for (const query of BENCH_QUERIES) await this.call('POST', 'endpoints/', { name: query.name, query: { kind: 'HogQLQuery', query: query.hogql } }, 201);
  }

  /** One live run of an endpoint (`refresh: force`): the time its answer took, its rows and the SQL it ran. */
  async runLive(name: string): Promise<{ ms: number; rows: number; sql: string }> {
    const started = performance.now();
    const answer = await this.call<{ results: unknown[]; hogql: string | null }>('POST', `endpoints/${name}/run`, { refresh: 'force', debug: true });
    return { ms: performance.now() - started, rows: answer.results.length, sql: answer.hogql ?? '' };
  }

  /**
   * A batch export to a PostgreSQL table, backfilled over the whole year a week a run: the rows
   * exported and the time from the backfill's request to its end (the job queue included).
   */
  async backfillYear(t0: number, destinationUrl: string, table: string): Promise<{ ms: number; records: number }> {
    const created = await this.call<{ id: string }>('POST', 'batch_exports/', { name: `bench ${table}`, interval: 'week', destination: postgresDestination(destinationUrl, { table_name: table }) }, 201);
    const start = new Date((earliestSecond(t0) - 8 * 86_400) * 1000);
    const end = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const started = performance.now();
    const { backfill_id } = await this.call<{ backfill_id: string }>('POST', `batch_exports/${created.id}/backfills/`, { start_at: start.toISOString(), end_at: end.toISOString() }, 201);
    for (;;) {
      const state = await this.call<{ status: string; total_records_count: number | null }>('GET', `batch_exports/${created.id}/backfills/${backfill_id}`);
      if (state.status === 'Completed') return { ms: performance.now() - started, records: state.total_records_count ?? 0 };
      if (state.status !== 'Running') throw new Error(`the backfill to ${table} ended ${state.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** The trend endpoint live (`refresh: force`) and materialized: each run's time, after the materialization completed. */
  async materializedAgainstLive(liveRuns: number, materializedRuns: number): Promise<{ liveMs: number; materializedMs: number }> {
    await this.call('POST', 'endpoints/', { name: 'trend_live', query: TREND_QUERY }, 201);
    await this.call('POST', 'endpoints/', { name: 'trend_kept', query: TREND_QUERY, is_materialized: true, sync_frequency: '1hour' }, 201);
    const waitedFrom = performance.now();
    for (;;) {
      const status = await this.call<{ status: string; error: string | null }>('GET', 'endpoints/trend_kept/materialization_status');
      if (status.status === 'Completed') break;
      if (status.status === 'Failed') throw new Error(`materialization failed: ${status.error}`);
      if (performance.now() - waitedFrom > 1_800_000) throw new Error('the materialization did not complete in 30 minutes');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const timed = async (name: string, body: Record<string, unknown>) => {
      const started = performance.now();
      await this.call('POST', `endpoints/${name}/run`, body);
      return performance.now() - started;
    };
    const live: number[] = [];
    for (let run = 0; run < liveRuns; run += 1) live.push(await timed('trend_live', { refresh: 'force' }));
    const kept: number[] = [];
    for (let run = 0; run < materializedRuns; run += 1) kept.push(await timed('trend_kept', {}));
    return { liveMs: percentiles(live).p50, materializedMs: percentiles(kept).p50 };
  }
}
