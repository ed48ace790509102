import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { requireUserId } from '../../shared/subgraph/access.js';
import type { Actor, EnvironmentPlacement } from '../../shared/auth/actor.js';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { refuseNulls } from '../../shared/validation.js';
import type { Logger } from '../../shared/logger.js';
import type { Envelope, PubSub } from '../../shared/pubsub/pubsub.js';
import { projectsFacade } from '../../projects/facade.js';
import { materializationTopic, type MaterializationPayload } from '../materialization/materialization.event.js';
import { MaterializationService } from '../materialization/materialization.service.js';
import { capVerdict, withinCap } from '../materialization/materialization.cap.js';
import { materializationVerdict } from '../materialization/materialization.rules.js';
import { endpointOpenApi } from '../openapi/endpoint-openapi.js';
import { prepareQuery } from '../queries/query.node.js';
import { compileForCheck } from '../queries/query.runner.js';
import { EndpointVersion } from './endpoint-version.entity.js';
import { Endpoint } from './endpoint.entity.js';
import type { CreateEndpointArgs, ListEndpointsArgs, UpdateEndpointArgs } from './endpoint.inputs.js';
import { materializationOf, toEndpointRecord, toVersionRecord, type MaterializationVerdict } from './endpoint.mapper.js';
import type { EndpointRecord, EndpointVersionRecord, MaterializationRecord } from './endpoint.record.js';
import { checkCacheAge, checkDescription, checkName, isValidName, sameQuery } from './endpoint.rules.js';

/** An endpoint found for an operation, with its environment. */
export interface FoundEndpoint {
  environment: EnvironmentPlacement;
  endpoint: Endpoint;
}

/** The rules of saved endpoints and their versions; every method is scoped to an environment the actor reaches. */
/** Fields an endpoint always has a value of: sent as null, they are a 400, as in PostHog. */
const NOT_NULL_FIELDS = ['description', 'query', 'is_active', 'is_materialized'];

export class EndpointService {
  private readonly materialization: MaterializationService;

  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
    log: Logger,
  ) {
    this.materialization = new MaterializationService(em.config.get('clientUrl')!, pubsub, log);
  }

  async list(actor: Actor, args: ListEndpointsArgs): Promise<EndpointRecord[]> {
    const environment = await this.environment(actor, args.project_id);
    const filter: Record<string, unknown> = { environment_id: environment.id };
    if (args.is_active !== null && args.is_active !== undefined) filter.is_active = args.is_active;
    if (args.created_by !== null && args.created_by !== undefined) filter.created_by_id = args.created_by;
    const endpoints = await this.em.find(Endpoint, filter, { orderBy: { created_at: 'desc', name: 'asc' } });
    return this.records(endpoints);
  }

  async get(actor: Actor, environmentId: number, name: string): Promise<EndpointRecord> {
    const { endpoint } = await this.find(actor, environmentId, name);
    return (await this.records([endpoint]))[0]!;
  }

  /** The endpoint of a name in an environment the actor reaches (404 otherwise, whatever the name). */
  async find(actor: Actor, environmentId: number, name: string): Promise<FoundEndpoint> {
    const environment = await this.environment(actor, environmentId);
    const endpoint = isValidName(name) ? await this.em.findOne(Endpoint, { environment_id: environment.id, name }) : null;
    if (!endpoint) throw new NotFoundError(`Endpoint '${name}' not found.`);
    return { environment, endpoint };
  }

  async create(actor: Actor, args: CreateEndpointArgs): Promise<EndpointRecord> {
    const environment = await this.environment(actor, args.project_id);
    refuseNulls(args, NOT_NULL_FIELDS);
    const name = checkName(args.name);
    const prepared = await prepareQuery(environment.id, args.query);
    compileForCheck(prepared);
    const userId = requireUserId(actor);
    const endpoint = Object.assign(new Endpoint(), {
      environment_id: environment.id,
      project_id: environment.project_id,
      name,
      description: checkDescription(args.description),
      query: prepared.node,
      is_active: args.is_active ?? true,
      cache_age_seconds: checkCacheAge(args.cache_age_seconds),
      derived_from_insight: args.derived_from_insight ?? null,
      created_by_id: userId,
    });
    const version = this.newVersion(endpoint, 1, userId);
    let materialize = this.materialization.plan(endpoint, version, prepared, args);
    if (await this.em.count(Endpoint, { environment_id: environment.id, name })) throw duplicate(name);
    try {
      await this.em.transactional(async (em) => {
        em.persist([endpoint, version]);
        await em.flush();
        materialize = await withinCap(em, environment.id, endpoint.id, materialize, true);
        await this.materialization.apply(em, endpoint, version, materialize, true);
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw duplicate(name);
      throw error;
    }
    await this.materialization.announce(endpoint, version, materialize);
    return (await this.records([endpoint]))[0]!;
  }

  async update(actor: Actor, args: UpdateEndpointArgs): Promise<EndpointRecord> {
    const { endpoint } = await this.find(actor, args.project_id, args.name);
    refuseNulls(args, NOT_NULL_FIELDS);
    const targeted = args.version !== null && args.version !== undefined;
    const queryGiven = args.query !== null && args.query !== undefined;
    if (targeted && queryGiven) throw new ValidationError('Cannot change the query of a given version: a query change always makes a new latest version.', 'version');
    let version = targeted ? await this.version(endpoint, args.version!) : await this.latest(endpoint);
    if (version.version !== endpoint.current_version && (args.is_materialized != null || args.sync_frequency != null)) {
      throw new ValidationError('Only the current version is materialized: leave out `version` to change materialization.', 'version');
    }
    const prepared = await prepareQuery(endpoint.environment_id, queryGiven ? args.query : version.query);
    let madeVersion = false;
    if (queryGiven && !sameQuery(prepared.node, version.query)) {
      madeVersion = true;
      compileForCheck(prepared);
      endpoint.query = prepared.node;
      version = this.newVersion(endpoint, endpoint.current_version + 1, requireUserId(actor), version);
      endpoint.current_version = version.version;
      this.em.persist(version);
    }
    this.applyFields(endpoint, version, args, targeted);
    const materialize = this.materialization.plan(endpoint, version, prepared, args);
    let retired = false;
    try {
      await this.em.transactional(async (em) => {
        await withinCap(em, endpoint.environment_id, endpoint.id, materialize, false);
        await em.flush();
        retired = await this.materialization.apply(em, endpoint, version, materialize, madeVersion);
      });
    } catch (error) {
      // Another change made the same version number first.
      if (error instanceof UniqueConstraintViolationException) throw new ConflictError('The endpoint was changed meanwhile: read it again and retry.');
      throw error;
    }
    await this.materialization.announce(endpoint, version, materialize, retired);
    return (await this.records([endpoint]))[0]!;
  }

  async delete(actor: Actor, environmentId: number, name: string): Promise<void> {
    const { endpoint } = await this.find(actor, environmentId, name);
    const versions = await this.em.find(EndpointVersion, { endpoint: endpoint.id });
    // Versions, their materialized rows and cached answers go with the endpoint (foreign keys and this delete).
    await this.em.transactional(async (em) => {
      await em.nativeDelete(Endpoint, { id: endpoint.id });
      await em.execute('delete from "endpoints"."cached_results" where version_id = any(array[?]::uuid[])', [versions.map((v) => v.id)]);
    });
    await this.materialization.announceDeleted(endpoint, versions);
  }

  async versions(actor: Actor, environmentId: number, name: string): Promise<EndpointVersionRecord[]> {
    const { endpoint } = await this.find(actor, environmentId, name);
    const versions = await this.em.find(EndpointVersion, { endpoint: endpoint.id }, { orderBy: { version: 'desc' } });
    const verdict = this.verdicts(endpoint.environment_id);
    return Promise.all(versions.map(async (version) => toVersionRecord(endpoint, version, await verdict(version))));
  }

  async versionRecord(actor: Actor, environmentId: number, name: string, number: number): Promise<EndpointVersionRecord> {
    const { endpoint } = await this.find(actor, environmentId, name);
    const version = await this.version(endpoint, number);
    return toVersionRecord(endpoint, version, await this.verdicts(endpoint.environment_id)(version));
  }

  /** The endpoint's OpenAPI document: its run path, its variables and its result columns typed. */
  async openapi(actor: Actor, environmentId: number, name: string): Promise<Record<string, unknown>> {
    const { endpoint } = await this.find(actor, environmentId, name);
    const current = await this.latest(endpoint);
    return endpointOpenApi(endpoint, await prepareQuery(endpoint.environment_id, current.query), current.is_materialized);
  }

  async materializationStatus(actor: Actor, environmentId: number, name: string): Promise<MaterializationRecord> {
    const { endpoint } = await this.find(actor, environmentId, name);
    const current = await this.latest(endpoint);
    return materializationOf(current, await this.verdicts(endpoint.environment_id)(current));
  }

  /** Materialization changes of one endpoint from now on; access is checked once, when the subscription starts. */
  async subscribeMaterialization(actor: Actor, environmentId: number, name: string): Promise<AsyncIterableIterator<Envelope<MaterializationPayload>>> {
    const { endpoint } = await this.find(actor, environmentId, name);
    return this.pubsub.subscribe<MaterializationPayload>(materializationTopic(endpoint.environment_id, endpoint.name));
  }

  async latest(endpoint: Endpoint): Promise<EndpointVersion> {
    return this.version(endpoint, endpoint.current_version);
  }

  async version(endpoint: Endpoint, number: number): Promise<EndpointVersion> {
    const version = await this.em.findOne(EndpointVersion, { endpoint: endpoint.id, version: number });
    if (!version) throw new NotFoundError(`Version ${number} not found`);
    return version;
  }

  /** Description, cache age and is_active: on the targeted version, else on the endpoint and its latest version. */
  private applyFields(endpoint: Endpoint, version: EndpointVersion, args: UpdateEndpointArgs, targeted: boolean): void {
    if (args.description !== undefined) version.description = checkDescription(args.description);
    if (args.cache_age_seconds !== undefined) version.cache_age_seconds = checkCacheAge(args.cache_age_seconds);
    if (targeted) {
      if (args.is_active !== null && args.is_active !== undefined) version.is_active = args.is_active;
      if (version.version !== endpoint.current_version) return;
    } else if (args.is_active !== null && args.is_active !== undefined) {
      endpoint.is_active = args.is_active;
    }
    endpoint.description = version.description;
    endpoint.cache_age_seconds = version.cache_age_seconds;
  }

  private newVersion(endpoint: Endpoint, number: number, userId: number, previous?: EndpointVersion): EndpointVersion {
    return Object.assign(new EndpointVersion(), {
      endpoint,
      environment_id: endpoint.environment_id,
      version: number,
      query: endpoint.query,
      description: previous?.description ?? endpoint.description,
      cache_age_seconds: previous?.cache_age_seconds ?? endpoint.cache_age_seconds,
      created_by_id: userId,
    });
  }

  /** Records of endpoints with their current versions and version counts: two queries for any number. */
  private async records(endpoints: Endpoint[]): Promise<EndpointRecord[]> {
    if (endpoints.length === 0) return [];
    const ids = endpoints.map((endpoint) => endpoint.id);
    const current = await this.em.find(EndpointVersion, {
      $or: endpoints.map((endpoint) => ({ endpoint: endpoint.id, version: endpoint.current_version })),
    });
    const counts = await this.em.execute<{ endpoint_id: string; n: number }[]>(
      'select endpoint_id, count(*)::int as n from "endpoints"."endpoint_versions" where endpoint_id = any(array[?]::uuid[]) group by endpoint_id',
      [ids],
    );
    const byEndpoint = new Map(current.map((version) => [version.endpoint.id, version]));
    const countOf = new Map(counts.map((row) => [row.endpoint_id, Number(row.n)]));
    const verdict = this.verdicts(endpoints[0]!.environment_id);
    return Promise.all(
      endpoints.map(async (endpoint) => {
        const version = byEndpoint.get(endpoint.id)!;
        return toEndpointRecord(endpoint, version, countOf.get(endpoint.id) ?? 1, await verdict(version));
      }),
    );
  }

  /**
   * Why versions of one environment cannot be materialized now: their query's reason, else, for
   * one not materialized, the environment's cap (counted once, when first needed).
   */
  private verdicts(environmentId: number): (version: EndpointVersion) => Promise<MaterializationVerdict> {
    let cap: Promise<string | null> | undefined;
    return async (version) => (await materializationVerdict(version)) ?? (version.is_materialized ? null : await (cap ??= capVerdict(this.em, environmentId)));
  }

  private environment(actor: Actor, environmentId: number): Promise<EnvironmentPlacement> {
    return projectsFacade.reachEnvironment(this.em, actor, environmentId);
  }
}

function duplicate(name: string): ValidationError {
  return new ValidationError(`An endpoint named '${name}' already exists in this project.`, 'name', 'unique');
}
