import type { EntityManager } from '@mikro-orm/postgresql';
import type { CapturedEvent } from '../capture/captured-event.js';

/**
 * Stores the events whose uuid the environment has not seen, in one statement: the ids go into
 * `event_ids` (unique per environment, unpartitioned, so that a retry is found whatever its
 * month), and only the rows whose id was new go into the partitioned `events`. Returns the uuids
 * stored now.
 */
export async function storeEvents(em: EntityManager, environmentId: number, events: CapturedEvent[]): Promise<Set<string>> {
  const rows = JSON.stringify(
    events.map(({ uuid, event, distinct_id, timestamp, properties }) => ({ uuid, event, distinct_id, timestamp, properties })),
  );
  const stored = await em.execute<{ uuid: string }[]>(
    `with input as (
       select * from jsonb_to_recordset(?::jsonb) as x(uuid uuid, event text, distinct_id text, timestamp timestamptz, properties jsonb)
     ), fresh as (
       insert into ingestion.event_ids (environment_id, uuid, timestamp)
       select ?, uuid, timestamp from input
       on conflict do nothing
       returning uuid
     )
     insert into ingestion.events (uuid, environment_id, event, distinct_id, timestamp, properties)
     select input.uuid, ?, input.event, input.distinct_id, input.timestamp, input.properties from input join fresh using (uuid)
     returning uuid`,
    [rows, environmentId, environmentId],
  );
  return new Set(stored.map((row) => row.uuid));
}

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
