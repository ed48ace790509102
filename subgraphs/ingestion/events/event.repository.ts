import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../shared/db/bound-query.js';
import { copyInto, copyRows } from '../../shared/db/copy.js';
import type { Statement } from '../../shared/db/statement.js';
import type { CapturedEvent } from '../capture/captured-event.js';
import type { EventQuery } from './event-condition.js';
import type { EventPosition } from './event-cursor.js';
import { ensurePartitions, forgetPartitions } from './event-partition.repository.js';
import type { EventRow, EventStore, TrendInterval } from './event-store.ports.js';

/**
 * Stores the events whose uuid the environment has not seen, answering the uuids it had already
 * (a retry's events, stored before). The ids go into `event_ids` (unique per environment,
 * unpartitioned, so that a retry is found whatever its month); then the events whose id was new
 * go into the partitioned `events` by COPY, their properties as the rules wrote them.
 */
async function storeEvents(em: EntityManager, environmentId: number, events: CapturedEvent[]): Promise<Set<string>> {
  const ids = JSON.stringify(events.map(({ uuid, timestamp }) => ({ uuid, timestamp })));
  const fresh = await executeBound<{ uuid: string }>(
    em,
    `insert into ingestion.event_ids (environment_id, uuid, timestamp)
     select ?, uuid, timestamp from jsonb_to_recordset(?::jsonb) as x(uuid uuid, timestamp timestamptz)
     on conflict do nothing returning uuid`,
    [environmentId, ids],
  );
  const isNew = new Set(fresh.map((row) => row.uuid));
  const environment = String(environmentId);
  const rows = events.filter((event) => isNew.has(event.uuid)).map((event) => [event.uuid, environment, event.event, event.distinct_id, event.timestamp, event.properties]);
  if (rows.length > 0) await copyInto(em, 'ingestion.events (uuid, environment_id, event, distinct_id, timestamp, properties)', copyRows(rows));
  return new Set(events.filter((event) => !isNew.has(event.uuid)).map((event) => event.uuid));
}

/** Which events to read: SQL conditions on `ingestion.events`, with their parameters. */
export interface EventCondition {
  sql: string;
  params: unknown[];
}

/** The SQL condition of an event query. */
export function eventCondition(query: EventQuery): EventCondition {
  const parts = ['environment_id = ?'];
  const params: unknown[] = [query.environmentId];
  const add = (sql: string, value: unknown) => {
    parts.push(sql);
    params.push(value);
  };
  if (query.event !== null) add('event = ?', query.event);
  if (query.distinct_id !== null) add('distinct_id = ?', query.distinct_id);
  if (query.after !== null) add('timestamp >= ?::timestamptz', query.after);
  if (query.before !== null) add('timestamp < ?::timestamptz', query.before);
  return { sql: parts.join(' and '), params };
}

const COLUMNS = `uuid as id, distinct_id, event, properties,
  to_char(timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as timestamp`;

/**
 * The statement of a page of events newest first, from `after` (exclusive) in (timestamp, uuid)
 * order. The order and the position name the table's columns: the select list's `timestamp` is
 * the text of the time, and an unqualified `order by timestamp` would sort by that text, which no
 * index holds (every event of the environment read and sorted, instead of a page walked off
 * `(environment_id, timestamp, uuid)`).
 */
export function eventsPageStatement(where: EventCondition, after: EventPosition | null, limit: number): Statement {
  const position = after ? ' and (events.timestamp, events.uuid) < (?::timestamptz, ?::uuid)' : '';
  return {
    sql: `select ${COLUMNS} from ingestion.events where ${where.sql}${position} order by events.timestamp desc, events.uuid desc limit ?`,
    params: [...where.params, ...(after ? [after.timestamp, after.uuid] : []), limit],
  };
}

/** A page of events newest first, from `after` (exclusive) in (timestamp, uuid) order. */
export async function readEvents(em: EntityManager, where: EventCondition, after: EventPosition | null, limit: number): Promise<EventRow[]> {
  const { sql, params } = eventsPageStatement(where, after, limit);
  return em.execute<EventRow[]>(sql, params);
}

async function countEvents(em: EntityManager, where: EventCondition): Promise<number> {
  const [row] = await em.execute<{ count: string }[]>(`select count(*) as count from ingestion.events where ${where.sql}`, [...where.params]);
  return Number(row!.count);
}

/** One event by uuid: its time from `event_ids` first, so that only its month's partition is read. */
async function findEvent(em: EntityManager, environmentId: number, uuid: string): Promise<EventRow | null> {
  const [id] = await em.execute<{ timestamp: string }[]>('select timestamp from ingestion.event_ids where environment_id = ? and uuid = ?', [environmentId, uuid]);
  if (!id) return null;
  const [row] = await em.execute<EventRow[]>(
    `select ${COLUMNS} from ingestion.events where environment_id = ? and uuid = ? and timestamp = ?`,
    [environmentId, uuid, id.timestamp],
  );
  return row ?? null;
}

/** How many events fall in each hour, day, week or month (UTC; weeks start on Monday), oldest first; empty buckets left out. */
async function countEventsByInterval(em: EntityManager, where: EventCondition, interval: TrendInterval): Promise<{ bucket: string; count: number }[]> {
  const rows = await em.execute<{ bucket: string; count: string }[]>(
    `select to_char(date_trunc('${interval}', timestamp at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as bucket, count(*) as count
       from ingestion.events where ${where.sql} group by 1 order by 1`,
    [...where.params],
  );
  return rows.map((row) => ({ bucket: row.bucket, count: Number(row.count) }));
}

/** PostgreSQL's codes of a batch transaction worth running again: a deadlock, a serialisation failure, a row that found no partition. */
const RETRYABLE = new Set(['40P01', '40001', '23514']);

/** The events store on PostgreSQL: `ingestion.events`, partitioned by month, and `event_ids`. */
export const postgresEvents: EventStore = {
  prepare: (em, events, log) => ensurePartitions(em, events.map((event) => event.time), log),
  async store(tx, environmentId, events) {
    const seen = await storeEvents(tx, environmentId, events);
    // Events and their profile changes commit together here: nothing is left pending.
    return { fresh: seen.size === 0 ? events : events.filter((event) => !seen.has(event.uuid)), landed: [], pending: null };
  },
  retryable(error) {
    const code = (error as { code?: string }).code;
    // A partition missing under a write: the database was replaced under this process.
    if (code === '23514') forgetPartitions();
    return code !== undefined && RETRYABLE.has(code);
  },
  page: (em, query, after, limit) => readEvents(em, eventCondition(query), after, limit),
  count: (em, query) => countEvents(em, eventCondition(query)),
  find: findEvent,
  trend: (em, query, interval) => countEventsByInterval(em, eventCondition(query), interval),
  async deleteEnvironments(em, environmentIds) {
    for (const table of ['events', 'event_ids']) await em.execute(`delete from ingestion.${table} where environment_id in (?)`, [environmentIds]);
  },
};
