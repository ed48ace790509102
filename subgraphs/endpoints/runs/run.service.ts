import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { AppError, NotFoundError, ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { projectsFacade } from '../../projects/facade.js';
import { MaterializationState, SYNC_FREQUENCIES, type EndpointVersion } from '../endpoints/endpoint-version.entity.js';
import { Endpoint } from '../endpoints/endpoint.entity.js';
import { EndpointService } from '../endpoints/endpoint.service.js';
import { readMaterializedRows } from '../materialization/materialized-rows.repository.js';
import { prepareQuery, type PreparedQuery } from '../queries/query.node.js';
import { clickhouseTypes, compileQuery, runBuiltQuery, runQuery, type QueryResult } from '../queries/query.runner.js';
import { CachedResult } from './cached-result.entity.js';
import { EndpointRun } from './endpoint-run.entity.js';
import type { RunEndpointArgs } from '../endpoints/endpoint.inputs.js';
import { checkRunRequest, DEBUG_KEYS, refreshMode, runVariables, type RefreshMode } from './run.rules.js';
import { withRunSlot } from './run.slots.js';
import { trendsBucketsQuery } from '../hogql/trends/trends.query.js';
import { trendsResults, type BucketRange } from './trends.results.js';
import { trendsVariables, withTrendsOverrides } from './trends.run.js';

/** How long an answer is served from the cache when the endpoint sets no cache age. */
export const DEFAULT_CACHE_AGE_SECONDS = 300;
/** The soonest a client may ask for a recomputation after the last one (PostHog's minimum refresh interval). */
const CLIENT_REFRESH_SECONDS = 60;
/** `last_executed_at` is written at most this often (PostHog's rule). */
const LAST_EXECUTED_EVERY_MS = 3_600_000;

type Answer = Record<string, unknown>;

interface Computed {
  result: QueryResult | { columns: QueryResult['columns']; rows: unknown[][]; hasMore: boolean; limit: number; sql?: undefined; ms: number };
  source: 'live' | 'cache' | 'materialized';
  computedAt: Date;
  /** The zone dates were cut in (the environment's). */
  timezone: string;
}

/** Runs endpoints: PostHog's run rules, its answer shape, the cache, the materialized result and the run log. */
export class RunService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
    private readonly log: Logger,
  ) {}

  async run(actor: Actor, args: RunEndpointArgs): Promise<Answer> {
    const endpoints = new EndpointService(this.em, this.pubsub, this.log);
    const { endpoint } = await endpoints.find(actor, args.project_id, args.name);
    if (!endpoint.is_active) throw new NotFoundError(`Endpoint '${args.name}' not found.`);
    const version = await this.versionToRun(endpoints, endpoint, args.version);
    let prepared = await prepareQuery(endpoint.environment_id, version.query);
    checkRunRequest(args, prepared);
    const mode = refreshMode(args.refresh, version.is_materialized);
    const known = prepared.kind === 'TrendsQuery' ? trendsVariables(prepared.node) : prepared.variables.map((variable) => variable.code_name);
    const variables = runVariables(args.variables, known);
    if (prepared.kind === 'TrendsQuery' && (Object.keys(variables).length > 0 || args.filters_override)) {
      prepared = await prepareQuery(endpoint.environment_id, withTrendsOverrides(prepared.node, variables, args.filters_override));
    }
    const started = new Date();
    try {
      const computed = await withRunSlot(endpoint.environment_id, () => this.compute(endpoint, version, prepared, variables, args, mode));
      // A trend's buckets are the whole date range (as of now), not only those with events.
      const range = prepared.kind === 'TrendsQuery' ? await this.bucketRange(endpoint, prepared, computed.timezone) : undefined;
      await this.record(actor, endpoint, version, args, started, computed.source, null);
      return this.answer(endpoint, version, prepared, computed, args, range);
    } catch (error) {
      if (error instanceof AppError) await this.record(actor, endpoint, version, args, started, 'live', error.message);
      throw error;
    }
  }

  private async versionToRun(endpoints: EndpointService, endpoint: Endpoint, number: number | null | undefined): Promise<EndpointVersion> {
    if (number === null || number === undefined) return endpoints.latest(endpoint);
    const version = await endpoints.version(endpoint, number).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new NotFoundError(`Version ${number} not found for endpoint '${endpoint.name}'`);
      throw error;
    });
    if (!version.is_active) throw new ValidationError(`Version ${number} of endpoint '${endpoint.name}' is inactive.`, 'version');
    return version;
  }

  private async compute(endpoint: Endpoint, version: EndpointVersion, prepared: PreparedQuery, variables: Record<string, unknown>, args: RunEndpointArgs, mode: RefreshMode): Promise<Computed> {
    const overview = await projectsFacade.environmentOverview(this.em, endpoint.environment_id);
    const timezone = typeof overview?.settings.timezone === 'string' ? overview.settings.timezone : 'UTC';
    const overridden = Object.keys(variables).length > 0 || (args.filters_override !== null && args.filters_override !== undefined);
    if (mode !== 'direct' && materializedFresh(version) && !overridden) {
      // The rows a live run would answer: the same limit rules (the kept result holds up to the maximum).
      const { limit } = compileQuery(prepared, { variables: {}, limit: args.limit ?? undefined, timezone });
      const { rows, more } = await readMaterializedRows(this.em, version.id, endpoint.environment_id, limit);
      const columns = version.materialized_columns as QueryResult['columns'];
      const result = { columns, rows, hasMore: more || version.materialized_has_more, limit, ms: 0 };
      return { result, source: 'materialized', computedAt: version.last_materialized_at!, timezone };
    }
    const key = cacheKey(endpoint.environment_id, version, prepared, variables, args.limit, timezone);
    if (mode === 'cache') {
      const cached = await this.em.findOne(CachedResult, { cache_key: key, environment_id: endpoint.environment_id });
      if (cached && cached.computed_at.getTime() + cacheAge(version) * 1000 > Date.now()) {
        return { result: cached.result as unknown as QueryResult, source: 'cache', computedAt: cached.computed_at, timezone };
      }
    }
    const result = await runQuery(this.em, this.log, endpoint.environment_id, prepared, { variables, limit: args.limit ?? undefined, timezone });
    const computedAt = new Date();
    await this.em.upsert(CachedResult, { cache_key: key, environment_id: endpoint.environment_id, version_id: version.id, result: result as unknown as Record<string, unknown>, computed_at: computedAt });
    return { result, source: 'live', computedAt, timezone };
  }

  /** PostHog's query-runner answer, `results` first, with the endpoint's version (and materialization) keys. */
  private async bucketRange(endpoint: Endpoint, prepared: PreparedQuery, timezone: string): Promise<BucketRange> {
    const [[first, last] = [null, null]] = await runBuiltQuery(this.em, this.log, endpoint.environment_id, trendsBucketsQuery(prepared.node), timezone);
    return { first, last };
  }

  private answer(endpoint: Endpoint, version: EndpointVersion, prepared: PreparedQuery, computed: Computed, args: RunEndpointArgs, range?: BucketRange): Answer {
    const { result } = computed;
    const age = cacheAge(version);
    const answer: Answer = {
      results: result.rows,
      columns: result.columns.map((column) => column.name),
      types: clickhouseTypes(result.columns),
      hasMore: result.hasMore,
      limit: result.limit,
      offset: 0,
      is_cached: computed.source !== 'live',
      last_refresh: computed.computedAt.toISOString(),
      next_allowed_client_refresh: new Date(computed.computedAt.getTime() + CLIENT_REFRESH_SECONDS * 1000).toISOString(),
      cache_target_age: new Date(computed.computedAt.getTime() + age * 1000).toISOString(),
      timezone: computed.timezone,
      query_status: null,
      error: null,
      hogql: result.sql ?? null,
      timings: [{ k: '.', t: result.ms / 1000 }],
      cache_key: `endpoint_${endpoint.environment_id}_${version.id}`,
      calculation_trigger: null,
      modifiers: {},
      resolved_date_range: null,
      endpoint_version: version.version,
      endpoint_version_created_at: version.created_at.toISOString(),
    };
    if (prepared.kind === 'TrendsQuery') {
      // An insight's answer: its series, not a table.
      answer.results = trendsResults(prepared.node, result.columns, result.rows, computed.timezone, range);
      for (const key of ['columns', 'types', 'hasMore', 'limit', 'offset']) delete answer[key];
    }
    if (version.is_materialized) {
      answer.endpoint_materialized = computed.source === 'materialized';
      answer.endpoint_materialized_at = version.last_materialized_at?.toISOString() ?? null;
    }
    if (!args.debug) for (const key of DEBUG_KEYS) delete answer[key];
    return answer;
  }

  /** The run log, and `last_executed_at` (at most hourly) for runs by personal API key. */
  private async record(actor: Actor, endpoint: Endpoint, version: EndpointVersion, args: RunEndpointArgs, started: Date, source: string, error: string | null): Promise<void> {
    const byKey = actor.kind === 'personal_api_key';
    await this.em.insert(EndpointRun, {
      environment_id: endpoint.environment_id,
      endpoint_name: endpoint.name,
      version: version.version,
      by_personal_api_key: byKey,
      client_query_id: args.client_query_id ?? null,
      started_at: started,
      duration_ms: Date.now() - started.getTime(),
      source,
      error,
    });
    // Not a change of the endpoint: `updated_at` stays.
    if (byKey && (!endpoint.last_executed_at || Date.now() - endpoint.last_executed_at.getTime() > LAST_EXECUTED_EVERY_MS)) {
      await this.em.nativeUpdate(Endpoint, { id: endpoint.id }, { last_executed_at: started });
    }
  }
}

function cacheAge(version: EndpointVersion): number {
  return version.cache_age_seconds ?? DEFAULT_CACHE_AGE_SECONDS;
}

/** A materialized result is read when its last refresh completed within its sync interval. */
function materializedFresh(version: EndpointVersion): boolean {
  if (!version.is_materialized || version.materialization_status !== MaterializationState.Completed || !version.last_materialized_at) return false;
  const interval = SYNC_FREQUENCIES[version.sync_frequency ?? '24hour'] * 1000;
  return version.last_materialized_at.getTime() + interval > Date.now() && version.materialized_columns !== null;
}

function cacheKey(teamId: number, version: EndpointVersion, prepared: PreparedQuery, variables: Record<string, unknown>, limit: number | null | undefined, timezone: string): string {
  const material = JSON.stringify([teamId, version.id, prepared.node, variables, limit ?? null, timezone]);
  return createHash('sha256').update(material).digest('hex');
}
