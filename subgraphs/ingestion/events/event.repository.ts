import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../shared/db/bound-query.js';
import type { EventDocuments } from '../capture/batch.rules.js';
import type { CapturedEvent } from '../capture/captured-event.js';

/** What storing a batch's events found besides the events stored. */
export interface StoreOutcome {
  /** Uuids the environment had already: a retry's events, stored before. */
  seen: Set<string>;
  /** Uuids whose properties exceed MAX_EVENT_PROPERTIES_BYTES, with their size: the batch must be refused. */
  large: Map<string, number>;
  /** Uuids recorded as seen but not stored: a defect, never expected. */
  lost: string[];
}

/** PostHog's capture drops events of about a megabyte; this platform refuses their batch. */
export const MAX_EVENT_PROPERTIES_BYTES = 1_048_576;

/**
 * Stores the events whose uuid the environment has not seen, in one statement. The columns the
 * rules computed come as rows (`index` is the event's place in the batch); the properties are read
 * from the documents as received, with top-level `$set` / `$set_once` merged in (PostHog's
 * normalisation), so that a megabyte of properties is not written out again here. The ids go into
 * `event_ids` (unique per environment, unpartitioned, so that a retry is found whatever its
 * month), and only the events whose id was new go into the partitioned `events`. Only what is
 * not plainly stored comes back (usually nothing).
 */
export async function storeEvents(em: EntityManager, environmentId: number, events: CapturedEvent[], documents: EventDocuments): Promise<StoreOutcome> {
  const rows = JSON.stringify(events.map(({ index, uuid, event, distinct_id, timestamp }) => ({ index, uuid, event, distinct_id, timestamp })));
  const found = await executeBound<{ uuid: string; kind: 'seen' | 'large' | 'lost'; size: number }>(
    em,
    `with input as (
       select * from jsonb_to_recordset(?::jsonb) as x(index int, uuid uuid, event text, distinct_id text, timestamp timestamptz)
     ), fresh as (
       insert into ingestion.event_ids (environment_id, uuid, timestamp)
       select ?, uuid, timestamp from input
       on conflict do nothing
       returning uuid
     ), stored as (
       insert into ingestion.events (uuid, environment_id, event, distinct_id, timestamp, properties)
       select input.uuid, ?, input.event, input.distinct_id, input.timestamp, ${PROPERTIES}
         from input join fresh using (uuid)
         join (select d.doc, d.n - 1 as index from jsonb_array_elements(${DOCUMENTS}) with ordinality as d(doc, n)) d using (index)
       returning uuid, pg_column_size(properties) as size
     )
     select uuid, 'seen' as kind, 0 as size from input where uuid not in (select uuid from fresh)
     union all select uuid, 'lost', 0 from fresh where uuid not in (select uuid from stored)
     union all select uuid, 'large', size from stored where size > ?`,
    [rows, environmentId, environmentId, documents.path, documents.json, MAX_EVENT_PROPERTIES_BYTES],
  );
  const outcome: StoreOutcome = { seen: new Set(), large: new Map(), lost: [] };
  for (const { uuid, kind, size } of found) {
    if (kind === 'seen') outcome.seen.add(uuid);
    else if (kind === 'large') outcome.large.set(uuid, size);
    else outcome.lost.push(uuid);
  }
  return outcome;
}

/** The events' documents in the JSON text: its path (`?`), then the text (`?`). */
const DOCUMENTS = `(select case ? when 'batch' then payload -> 'batch' when 'single' then jsonb_build_array(payload) else payload end from (select ?::jsonb as payload) as p)`;

/** A document's properties (an object, else none), with its top-level `$set` and `$set_once` merged into theirs. */
const PROPERTIES = `(
  case when jsonb_typeof(d.doc -> 'properties') = 'object' then d.doc -> 'properties' else '{}'::jsonb end
  ${['$set', '$set_once']
    .map(
      (key) => `|| case when jsonb_typeof(d.doc -> '${key}') = 'object'
        then jsonb_build_object('${key}', coalesce(case when jsonb_typeof(d.doc -> 'properties' -> '${key}') = 'object' then d.doc -> 'properties' -> '${key}' end, '{}'::jsonb) || (d.doc -> '${key}'))
        else '{}'::jsonb end`,
    )
    .join('\n  ')}
)`;

/** Which events to read: SQL conditions on `ingestion.events`, with their parameters. */
export interface EventCondition {
  sql: string;
  params: unknown[];
}

const COLUMNS = `uuid as id, distinct_id, event, properties,
  to_char(timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as timestamp`;

export interface EventRow {
  id: string;
  distinct_id: string;
  event: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

/** A page of events newest first, from `after` (exclusive) in (timestamp, uuid) order. */
export async function readEvents(
  em: EntityManager,
  where: EventCondition,
  after: { timestamp: string; uuid: string } | null,
  limit: number,
): Promise<EventRow[]> {
  const position = after ? ' and (timestamp, uuid) < (?::timestamptz, ?::uuid)' : '';
  return em.execute<EventRow[]>(
    `select ${COLUMNS} from ingestion.events where ${where.sql}${position} order by timestamp desc, uuid desc limit ?`,
    [...where.params, ...(after ? [after.timestamp, after.uuid] : []), limit],
  );
}

export async function countEvents(em: EntityManager, where: EventCondition): Promise<number> {
  const [row] = await em.execute<{ count: string }[]>(`select count(*) as count from ingestion.events where ${where.sql}`, [...where.params]);
  return Number(row!.count);
}

/** One event by uuid: its time from `event_ids` first, so that only its month's partition is read. */
export async function findEvent(em: EntityManager, environmentId: number, uuid: string): Promise<EventRow | null> {
  const [id] = await em.execute<{ timestamp: string }[]>('select timestamp from ingestion.event_ids where environment_id = ? and uuid = ?', [environmentId, uuid]);
  if (!id) return null;
  const [row] = await em.execute<EventRow[]>(
    `select ${COLUMNS} from ingestion.events where environment_id = ? and uuid = ? and timestamp = ?`,
    [environmentId, uuid, id.timestamp],
  );
  return row ?? null;
}

export type TrendInterval = 'hour' | 'day' | 'week' | 'month';

/** How many events fall in each hour, day, week or month (UTC; weeks start on Monday), oldest first; empty buckets left out. */
export async function countEventsByInterval(em: EntityManager, where: EventCondition, interval: TrendInterval): Promise<{ bucket: string; count: number }[]> {
  const rows = await em.execute<{ bucket: string; count: string }[]>(
    `select to_char(date_trunc('${interval}', timestamp at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as bucket, count(*) as count
       from ingestion.events where ${where.sql} group by 1 order by 1`,
    [...where.params],
  );
  return rows.map((row) => ({ bucket: row.bucket, count: Number(row.count) }));
}
