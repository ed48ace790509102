import type { EntityManager } from '@mikro-orm/postgresql';
import { clickhouseOf } from '../../shared/clickhouse/clickhouse.registry.js';
import { executeBound } from '../../shared/db/bound-query.js';
import { ClickHouseEvents } from '../events/event.clickhouse.js';
import type { EventKey, PendingInsert } from '../events/event-store.ports.js';

/*
 * Where events live on ClickHouse, a batch's profile changes commit before its events are
 * inserted (ClickHouse cannot take part in the transaction), marked as awaiting that insert by its
 * deduplication token. Committed first, they cannot be lost to a process that dies or a commit
 * that fails after ClickHouse took the events (the retry would find every event stored, queue
 * nothing, and the changes would be gone); marked, they are not applied for events ClickHouse
 * never took. The batch's process clears the mark in a transaction that holds the row while it
 * inserts and commits once the insert answered, so the batch gets its 200 with changes that will
 * apply. A mark left set (the process died, the insert or that commit failed) is settled by what
 * ClickHouse holds: by a later attempt of the batch that finds the events stored, or by the sweep.
 */

/** What marks a batch's changes: the insert they wait for. */
export type AwaitedInsert = Pick<PendingInsert, 'token' | 'events'>;

/** A batch's process clears its mark within moments of its commit: one set longer was left behind. */
const SETTLE_AFTER_SECONDS = 10;

const CLEARED = 'insert_token = null, insert_events = null';

/**
 * Clears the mark of the batch's own insert, locking its row until the caller's transaction ends
 * (the sweep leaves it alone meanwhile). False when no row has it any more: another attempt of
 * the batch, or the sweep, settled it.
 */
export async function holdAwaited(em: EntityManager, environmentId: number, token: string): Promise<boolean> {
  const rows = await executeBound(em, `update ingestion.profile_updates set ${CLEARED} where environment_id = ? and insert_token = ? returning id`, [environmentId, token]);
  return rows.length > 0;
}

/**
 * Clears the marks of inserts that hold some of these events, which ClickHouse holds: an earlier
 * attempt's insert landed (one insert, taken whole), and its changes may apply. Rows are locked in
 * their order, so that two batches settling the same ones cannot deadlock.
 */
export async function confirmLanded(em: EntityManager, environmentId: number, uuids: string[]): Promise<void> {
  await executeBound(
    em,
    `update ingestion.profile_updates set ${CLEARED} where id in (
       select id from ingestion.profile_updates
        where environment_id = ? and insert_token is not null
          and exists (select from jsonb_to_recordset(insert_events) as e(uuid uuid) where e.uuid in (select jsonb_array_elements_text(?::jsonb)::uuid))
        order by id for update)`,
    [environmentId, JSON.stringify(uuids)],
  );
}

/**
 * Settles marks left set a while, each by what ClickHouse holds: every event of its insert → the
 * changes apply; not all → they go. The batch was then never acknowledged, and its client's retry
 * queues them again; events of it that another batch stored came with that batch's own changes.
 * A row whose batch still inserts is locked by it, and skipped.
 */
export async function settleAwaitedInserts(em: EntityManager): Promise<void> {
  const clickhouse = clickhouseOf(em);
  if (!clickhouse) return;
  const store = ClickHouseEvents.of(clickhouse);
  await em.transactional(async (tx) => {
    const rows = await tx.execute<{ id: string; environment_id: number; insert_events: EventKey[] }[]>(
      `select id, environment_id, insert_events from ingestion.profile_updates
        where insert_token is not null and created_at < now() - make_interval(secs => ?) order by id limit 100 for update skip locked`,
      [SETTLE_AFTER_SECONDS],
    );
    const landed: string[] = [];
    const lost: string[] = [];
    for (const row of rows) {
      const seen = await store.seen(row.environment_id, row.insert_events);
      (row.insert_events.every((event) => seen.has(event.uuid)) ? landed : lost).push(String(row.id));
    }
    if (landed.length > 0) await tx.execute(`update ingestion.profile_updates set ${CLEARED} where id in (?)`, [landed]);
    if (lost.length > 0) await tx.execute('delete from ingestion.profile_updates where id in (?)', [lost]);
  });
}
