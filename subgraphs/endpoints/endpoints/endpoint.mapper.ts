import type { EndpointVersion } from './endpoint-version.entity.js';
import type { Endpoint } from './endpoint.entity.js';
import type { EndpointRecord, EndpointVersionRecord, MaterializationRecord } from './endpoint.record.js';

/** Why a version cannot be materialized, or null when it can. */
export type MaterializationVerdict = string | null;

/** PostHog's run path of an endpoint (under `environments`, as its `endpoint_path`). */
export function runPath(endpoint: Pick<Endpoint, 'environment_id' | 'name'>): string {
  return `/api/environments/${endpoint.environment_id}/endpoints/${endpoint.name}/run`;
}

export function materializationOf(version: EndpointVersion, verdict: MaterializationVerdict): MaterializationRecord {
  if (!version.is_materialized) {
    return { status: null, can_materialize: verdict === null, reason: verdict, last_materialized_at: null, error: null, sync_frequency: null };
  }
  return {
    status: version.materialization_status,
    can_materialize: true,
    reason: null,
    last_materialized_at: version.last_materialized_at,
    error: version.materialization_error,
    sync_frequency: version.sync_frequency,
  };
}

export function toEndpointRecord(endpoint: Endpoint, current: EndpointVersion, versionsCount: number, verdict: MaterializationVerdict): EndpointRecord {
  const path = runPath(endpoint);
  return {
    id: endpoint.id,
    name: endpoint.name,
    description: endpoint.description,
    query: endpoint.query,
    is_active: endpoint.is_active,
    cache_age_seconds: endpoint.cache_age_seconds,
    endpoint_path: path,
    url: path,
    ui_url: `/project/${endpoint.environment_id}/endpoints/${endpoint.name}`,
    created_at: endpoint.created_at,
    updated_at: endpoint.updated_at,
    created_by: endpoint.created_by_id === null ? null : { id: endpoint.created_by_id },
    is_materialized: current.is_materialized,
    current_version: endpoint.current_version,
    versions_count: versionsCount,
    derived_from_insight: endpoint.derived_from_insight,
    materialization: materializationOf(current, verdict),
    last_executed_at: endpoint.last_executed_at,
  };
}

export function toVersionRecord(endpoint: Endpoint, version: EndpointVersion, verdict: MaterializationVerdict): EndpointVersionRecord {
  const author = version.created_by_id === null ? null : { id: version.created_by_id };
  return {
    id: version.id,
    name: endpoint.name,
    version: version.version,
    query: version.query,
    description: version.description,
    cache_age_seconds: version.cache_age_seconds,
    is_active: version.is_active,
    created_at: version.created_at,
    created_by: author,
    is_materialized: version.is_materialized,
    materialization: materializationOf(version, verdict),
    endpoint_is_active: endpoint.is_active,
    version_id: version.id,
    version_created_at: version.created_at,
    version_created_by: author,
  };
}
