import type { EntityManager } from '@mikro-orm/postgresql';
import { Endpoint } from './endpoints/endpoint.entity.js';
import { EndpointRun } from './runs/endpoint-run.entity.js';
import { CachedResult } from './runs/cached-result.entity.js';

/** Drops the endpoints of deleted environments with their versions, materialized rows, cache and run log (the deletion job calls this). */
export async function deleteEnvironmentData(em: EntityManager, environmentIds: number[]): Promise<void> {
  if (environmentIds.length === 0) return;
  // Versions and their materialized rows go with their endpoints (foreign keys).
  await em.nativeDelete(Endpoint, { environment_id: { $in: environmentIds } });
  await em.nativeDelete(CachedResult, { environment_id: { $in: environmentIds } });
  await em.nativeDelete(EndpointRun, { environment_id: { $in: environmentIds } });
}
