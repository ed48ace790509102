import type { EntityManager } from '@mikro-orm/postgresql';
import { BatchExport } from './exports/batch-export.entity.js';

/** Drops the batch exports of deleted environments with their runs and backfills (the deletion job calls this). */
export async function deleteEnvironmentData(em: EntityManager, environmentIds: number[]): Promise<void> {
  if (environmentIds.length === 0) return;
  // Runs and backfills go with their exports (foreign keys); a run in progress loses its lease.
  await em.nativeDelete(BatchExport, { environment_id: { $in: environmentIds } });
}
