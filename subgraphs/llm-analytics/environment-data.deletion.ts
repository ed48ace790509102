import type { EntityManager } from '@mikro-orm/postgresql';
import { ProviderKey } from './provider-keys/provider-key.entity.js';
import { SummaryCacheEntry } from './summarization/summary-cache.entity.js';

/**
 * What a deleted environment leaves here: its provider keys (their active marks go with them) and
 * its cached summaries in PostgreSQL (Redis entries expire within the hour). Safe to repeat.
 */
export async function deleteEnvironmentData(em: EntityManager, environmentIds: number[]): Promise<void> {
  if (environmentIds.length === 0) return;
  await em.nativeDelete(ProviderKey, { environment_id: { $in: environmentIds } });
  for (const id of environmentIds) await em.nativeDelete(SummaryCacheEntry, { key: { $like: `llm_summary:${id}:%` } });
}
