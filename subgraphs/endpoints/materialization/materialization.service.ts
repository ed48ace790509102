import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { MaterializationState, type EndpointVersion } from '../endpoints/endpoint-version.entity.js';
import type { Endpoint } from '../endpoints/endpoint.entity.js';
import { materializationOf } from '../endpoints/endpoint.mapper.js';
import type { PreparedQuery } from '../queries/query.node.js';
import { materializationTopic, type MaterializationPayload } from './materialization.event.js';
import { scheduleRefresh } from './materialization.jobs.js';
import { planMaterialization, type MaterializationFields, type MaterializationPlan } from './materialization.rules.js';
import { dropMaterializedRows } from './materialized-rows.repository.js';

/**
 * Switches the materialization of versions on and off as creates and updates ask: the change is
 * written in the caller's transaction, the first refresh is queued and the change announced after
 * it commits. The refreshes themselves are the worker's (materialization.worker.ts).
 */
export class MaterializationService {
  constructor(
    /** The database whose job queue takes the refreshes. */
    private readonly databaseUrl: string,
    private readonly pubsub: PubSub,
    private readonly log: Logger,
  ) {}

  plan(endpoint: Endpoint, version: EndpointVersion, prepared: PreparedQuery, fields: MaterializationFields): MaterializationPlan {
    return planMaterialization(endpoint.is_active, version, prepared, fields);
  }

  /**
   * Writes the plan on the version (in the caller's transaction). When the current version was just
   * made or materialized, the older ones stop being materialized; answers whether that changed any.
   */
  async apply(em: EntityManager, endpoint: Endpoint, version: EndpointVersion, plan: MaterializationPlan, madeVersion: boolean): Promise<boolean> {
    if (plan.action === 'disable') {
      Object.assign(version, { is_materialized: false, materialization_status: null, refresh_due_at: null, materialization_error: null, last_materialized_at: null, materialized_columns: null });
      await dropMaterializedRows(em, [version.id]);
    } else if (plan.action === 'enable') {
      version.is_materialized = true;
      version.sync_frequency = plan.frequency;
      if (plan.restart) Object.assign(version, { materialization_status: MaterializationState.Running, refresh_due_at: new Date(), materialization_error: null });
    }
    await em.flush();
    const current = version.version === endpoint.current_version;
    return current && (madeVersion || plan.action === 'enable') ? this.retireOlderVersions(em, endpoint, version) : false;
  }

  /** After the commit: queues the first refresh and tells subscribers (also when older versions stopped being materialized). */
  async announce(endpoint: Endpoint, version: EndpointVersion, plan: MaterializationPlan, retired = false): Promise<void> {
    if (plan.action === 'keep' && !retired) return;
    if (plan.action === 'enable' && plan.restart && version.refresh_due_at) {
      await scheduleRefresh(this.databaseUrl, version.id, version.refresh_due_at).catch((error: unknown) => this.log.error({ err: error, version: version.id }, 'could not queue a refresh (the worker sweep will)'));
    }
    await this.publish(endpoint, version, true);
  }

  /** The last event of the endpoint's stream: it no longer exists. */
  async announceDeleted(endpoint: Endpoint, versions: EndpointVersion[]): Promise<void> {
    const current = versions.find((version) => version.version === endpoint.current_version);
    if (current) await this.publish(endpoint, { ...current, is_materialized: false } as EndpointVersion, false);
  }

  async publish(endpoint: Pick<Endpoint, 'environment_id' | 'name'>, version: EndpointVersion, exists: boolean): Promise<void> {
    const payload: MaterializationPayload = { name: endpoint.name, version: version.version, exists, materialization: materializationOf(version, null) };
    await this.pubsub.publish(materializationTopic(endpoint.environment_id, endpoint.name), payload);
  }

  /**
   * Only the current version stays materialized: once a new version is made the older ones stop
   * refreshing and drop their rows (runs of an older version read it live).
   */
  private async retireOlderVersions(em: EntityManager, endpoint: Endpoint, current: EndpointVersion): Promise<boolean> {
    const older = await em.execute<{ id: string }[]>(
      `update "endpoints"."endpoint_versions" set is_materialized = false, materialization_status = null, refresh_due_at = null, materialized_columns = null
       where endpoint_id = ? and id <> ? and is_materialized returning id`,
      [endpoint.id, current.id],
    );
    if (older.length > 0) {
      await dropMaterializedRows(em, older.map((row) => row.id));
      this.log.info({ endpoint: endpoint.name, versions: older.length }, 'older versions no longer materialized');
    }
    return older.length > 0;
  }
}
