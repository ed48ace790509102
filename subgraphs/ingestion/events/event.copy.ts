import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { eventQuery } from './event-condition.js';
import { ClickHouseEvents, type EventInsert } from './event.clickhouse.js';
import { backfillMirror } from '../profiles/profile-mirror.backfill.js';
import { postgresEvents } from './event.repository.js';

/** Where a copy of an environment's events stands: its last event copied, in (timestamp, uuid) order. */
export interface EventCopyKey {
  /** As stored: `2024-05-01T12:00:00.123456Z`. */
  timestamp: string;
  uuid: string;
}

/** What copying one page did. */
export interface CopiedPage {
  /** Events of the page read from PostgreSQL. */
  read: number;
  /** Of those, the ones inserted: ClickHouse held the others already. */
  inserted: number;
  /** The page's last event; null when nothing follows `after` (the environment is copied). */
  last: EventCopyKey | null;
}

const time = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** What a page reads: the whole event to copy it, its key alone to look for it. */
const EVENT_COLUMNS = `uuid::text as uuid, event, distinct_id, properties::text as properties, ${time('events.timestamp')} as timestamp, ${time('events.created_at')} as created_at`;
const KEY_COLUMNS = `uuid::text as uuid, ${time('events.timestamp')} as timestamp`;

/**
 * The environment's events after `after`, oldest first, walked off the index on
 * `(environment_id, timestamp, uuid)`: a page costs its own rows whatever the table holds. The
 * order and the position name the table's columns (the select list's `timestamp` is text).
 */
function readPage<Row extends EventCopyKey>(em: EntityManager, columns: string, environmentId: number, after: EventCopyKey | null, limit: number): Promise<Row[]> {
  const position = after ? ' and (events.timestamp, events.uuid) > (?::timestamptz, ?::uuid)' : '';
  return em.execute<Row[]>(
    `select ${columns} from ingestion.events where environment_id = ?${position} order by events.timestamp, events.uuid limit ?`,
    [environmentId, ...(after ? [after.timestamp, after.uuid] : []), limit],
  );
}

const lastKey = (rows: EventCopyKey[]): EventCopyKey => ({ timestamp: rows.at(-1)!.timestamp, uuid: rows.at(-1)!.uuid });

/**
 * Moving an installation's events from PostgreSQL's `ingestion.events` to ClickHouse's `events`
 * (`npm run events:copy`), a page at a time. Properties go as PostgreSQL prints its jsonb: valid
 * JSON text with the digits it kept, which every reader of the column parses.
 */
export const eventsCopy = {
  /** The environments PostgreSQL holds events of, ascending (a skip scan of the index: one probe each). */
  async environments(em: EntityManager): Promise<number[]> {
    const rows = await em.execute<{ id: number }[]>(
      `with recursive environments(id) as (
         select min(environment_id) from ingestion.events
         union all
         select (select min(environment_id) from ingestion.events where environment_id > environments.id) from environments where environments.id is not null
       ) select id from environments where id is not null`,
    );
    return rows.map((row) => Number(row.id));
  },

  /** How many events PostgreSQL holds of the environment. */
  postgresCount: (em: EntityManager, environmentId: number): Promise<number> => postgresEvents.count(em, eventQuery(environmentId, {})),

  /** How many distinct events (by uuid) ClickHouse holds of the environment, whether copied or ingested there. */
  clickhouseCount: (clickhouse: ClickHouse, environmentId: number): Promise<number> => ClickHouseEvents.of(clickhouse).count(undefined, eventQuery(environmentId, {})),

  /**
   * Copies the events after `after`, `limit` of them. Those ClickHouse holds already are left out,
   * one query a page within the page's days (the sorting key leads with team and day): an event
   * ingested there since the switch, or one a `/batch/` retry stored on both sides, has a row of
   * its own (its `inserted_at`, perhaps its key), which the ReplacingMergeTree would collapse only
   * at a merge that may never come, and every row-counting read would see twice meanwhile. The
   * rest go in one synchronous insert whose deduplication token is made of their uuids, so that a
   * page run again after a kill inserts nothing twice.
   */
  async copyPage(em: EntityManager, clickhouse: ClickHouse, environmentId: number, after: EventCopyKey | null, limit: number): Promise<CopiedPage> {
    const rows = await readPage<EventInsert & EventCopyKey>(em, EVENT_COLUMNS, environmentId, after, limit);
    if (rows.length === 0) return { read: 0, inserted: 0, last: null };
    const store = ClickHouseEvents.of(clickhouse);
    const held = await store.seen(environmentId, rows);
    const fresh = rows.filter((row) => !held.has(row.uuid));
    if (fresh.length > 0) await store.insert(environmentId, fresh);
    return { read: rows.length, inserted: fresh.length, last: lastKey(rows) };
  },

  /**
   * Writes the environment's persons, distinct ids and groups into ClickHouse's mirror tables, as
   * PostgreSQL holds them: HogQL's person and group joins read the mirror, and a person that
   * existed before the switch reaches it no other way until it next changes.
   */
  copyProfiles: backfillMirror,

  /** How many of PostgreSQL's events of the environment ClickHouse holds, looked for a page at a time. */
  async heldInClickHouse(em: EntityManager, clickhouse: ClickHouse, environmentId: number, limit: number): Promise<number> {
    const store = ClickHouseEvents.of(clickhouse);
    let held = 0;
    for (let after: EventCopyKey | null = null; ; ) {
      const keys = await readPage<EventCopyKey>(em, KEY_COLUMNS, environmentId, after, limit);
      if (keys.length === 0) return held;
      held += (await store.seen(environmentId, keys)).size;
      after = lastKey(keys);
    }
  },
};
