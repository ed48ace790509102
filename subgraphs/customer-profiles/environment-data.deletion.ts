import type { EntityManager } from '@mikro-orm/postgresql';
import { CustomerProfileConfig } from './configs/customer-profile-config.entity.js';

/** Drops the configs of deleted environments (the projects subgraph's deletion job calls this). */
export async function deleteEnvironmentData(em: EntityManager, environmentIds: number[]): Promise<void> {
  if (environmentIds.length > 0) await em.nativeDelete(CustomerProfileConfig, { environment_id: { $in: environmentIds } });
}
