import type { EntityManager } from '@mikro-orm/postgresql';

/** Drops the conversations of deleted environments, with their messages and queues (the projects subgraph's deletion job calls this). */
export async function deleteEnvironmentData(em: EntityManager, environmentIds: number[]): Promise<void> {
  if (environmentIds.length === 0) return;
  await em.execute(
    `with gone as (delete from conversations.conversations where environment_id in (?) returning id)
     delete from conversations.queue_items where conversation_id in (select id from gone)`,
    [environmentIds],
  );
}
