import type { EntityManager } from '@mikro-orm/postgresql';
import type { Statement } from '../../shared/db/statement.js';

/** The events' time an export reads by: when the event was ingested, or when it happened. */
export type EventTime = 'created_at' | 'timestamp';

/** A place in an export's (time, uuid) order; the time ISO 8601 in UTC with microseconds, exact when read back. */
export interface EventKeyset {
  at: string;
  uuid: string;
}

/** Each time's index on the events table (environment, time, uuid), which this read walks alone. */
const TIME_COLUMNS: Record<EventTime, string> = { created_at: '"created_at"', timestamp: '"timestamp"' };

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * The statement of the key of the `rows`-th event after `after` of the window `[start, end)` of
 * `by`, in (time, uuid) order. The order and the position name the table's columns: the select
 * list's `uuid` is its text, and an unqualified `order by uuid` would sort each time's events by
 * that text, after the index had given them in the uuid's order.
 */
export function eventPageBoundStatement(environmentId: number, window: { by: EventTime; start: Date | null; end: Date }, after: EventKeyset | null, rows: number): Statement {
  const time = `events.${TIME_COLUMNS[window.by]}`;
  return {
    sql: `select to_char(${time} at time zone 'UTC', ${ISO}) as at, events.uuid::text as uuid
       from ingestion.events
      where events.environment_id = ? and ${time} < ? ${window.start ? `and ${time} >= ?` : ''}
        ${after ? `and (${time}, events.uuid) > (?::timestamptz, ?::uuid)` : ''}
      order by ${time}, events.uuid
      offset ? limit 1`,
    params: [environmentId, window.end, ...(window.start ? [window.start] : []), ...(after ? [after.at, after.uuid] : []), Math.max(0, rows - 1)],
  };
}

/**
 * The key of the `rows`-th event after `after` of the window `[start, end)` of `by`, in (time, uuid)
 * order; null when fewer remain. It reads the index alone and stops there, so that a page of an
 * export query (which the views' security barrier makes sort whatever its range holds) can be
 * bounded on both sides of that index before it runs.
 */
export async function readEventPageBound(
  em: EntityManager,
  environmentId: number,
  window: { by: EventTime; start: Date | null; end: Date },
  after: EventKeyset | null,
  rows: number,
): Promise<EventKeyset | null> {
  const { sql, params } = eventPageBoundStatement(environmentId, window, after, rows);
  const [row] = await em.execute<{ at: string; uuid: string }[]>(sql, params);
  return row ? { at: row.at, uuid: row.uuid } : null;
}
