import type { EntityManager } from '@mikro-orm/postgresql';
import { eventStoreOf } from './events/event.store.js';
import { lockProfiles } from './profiles/profile.queue.js';

/**
 * What a deleted environment leaves here: its events (every partition), their ids, persons with
 * their distinct ids, groups, and profile changes not yet applied. The only way event data goes (API document, section 4.9 rule 5:
 * no event is deleted selectively). Safe to repeat.
 */
export async function deleteEnvironmentData(em: EntityManager, environmentIds: number[]): Promise<void> {
  if (environmentIds.length === 0) return;
  await em.transactional(async (tx) => {
    // A profile pass in progress finishes first: it would otherwise make persons of a deleted environment.
    for (const id of [...environmentIds].sort((a, b) => a - b)) await lockProfiles(tx, id, true);
    await eventStoreOf(tx).deleteEnvironments(tx, environmentIds);
    for (const table of ['profile_updates', 'person_distinct_ids', 'persons', 'groups']) {
      await tx.execute(`delete from ingestion.${table} where environment_id in (?)`, [environmentIds]);
    }
  });
}
