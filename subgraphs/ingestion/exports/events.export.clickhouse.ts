import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { ClickHouseDdl } from '../../shared/clickhouse/clickhouse.ddl.js';
import { EVENTS } from '../clickhouse/clickhouse.tables.js';
import { clickhouseTime } from '../events/event.clickhouse.js';
import type { EventKeyset, EventTime } from './events.export.js';

/**
 * The column of the events table each export time reads. `created_at` is the ingest time as on
 * PostgreSQL, not `inserted_at` (what PostHog's batch exports read): both are stamped as the
 * insert is sent (by the platform's clock, and by ClickHouse's), so a run's settling delay
 * (BATCH_EXPORT_SETTLE_SECONDS) covers either alike; but `npm run events:copy` keeps each event's
 * `created_at`, whereas its `inserted_at` is when the copy inserted it, and reading that would
 * export every copied event a second time after a move; and the exported `_inserted_at` stays
 * the value PostgreSQL exported.
 */
const TIME_COLUMNS: Record<EventTime, string> = { created_at: 'created_at', timestamp: 'timestamp' };

/** ClickHouse's text of a DateTime64 as the keysets write it: ISO 8601 in UTC, microseconds. */
const ISO = (column: string) => `formatDateTime(${column}, '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC')`;

/** Where one page of a plan ends, and the event times its events have (for the sorting key). */
export interface EventPageBound extends EventKeyset {
  /** The earliest and latest `timestamp` of the events from the previous bound to this one. */
  timestamps: { from: string; to: string };
}

/**
 * The pages of an export's window on ClickHouse, read once per run: the table's sorting key leads
 * with the event's day, not with the export's order, so the key of the N-th event of a window
 * costs a read of the window; one such read gives every bound at once.
 */
export interface EventPagePlan {
  /** Every `rows`-th event's key after the plan's start, in (time, uuid) order; fewer than `rows` follow the last. */
  bounds: EventPageBound[];
  /**
   * The uuids stored more than once in the window (ReplacingMergeTree collapses a repeated insert
   * only when it merges), with the time of the copy a merge keeps: the latest one written (of
   * those in the window).
   */
  repeated: Map<string, string>;
}

/**
 * Plans the pages of `rows` events of the window `[start, end)` of `by` after `after`: one read
 * of the window's keys, each uuid counted once at its latest time (the copy a merge keeps). The
 * plan's bounds are a hint for the pages' ranges, never their contents: a page reads what its
 * range holds when it runs.
 */
export async function planEventPages(
  clickhouse: ClickHouse,
  environmentId: number,
  window: { by: EventTime; start: Date | null; end: Date },
  after: EventKeyset | null,
  rows: number,
): Promise<EventPagePlan> {
  const time = TIME_COLUMNS[window.by];
  const table = new ClickHouseDdl(clickhouse.database, clickhouse.cluster).table(EVENTS.name);
  const conditions = ['team_id = {team:Int64}', `${time} < {end:DateTime64(6, 'UTC')}`];
  if (window.start) conditions.push(`${time} >= {start:DateTime64(6, 'UTC')}`);
  if (after) conditions.push(`(${time} > {after_time:DateTime64(6, 'UTC')} OR (${time} = {after_time:DateTime64(6, 'UTC')} AND uuid > {after_uuid:UUID}))`);
  // The names are no column's (ClickHouse reads an alias for the column of the same name).
  const found = await clickhouse.query<{ at: string; id: string; first: string; last: string; copies: number; n: number }>(
    `SELECT ${ISO('t')} AS at, toString(u) AS id, ${ISO('lo')} AS first, ${ISO('hi')} AS last, copies, n FROM (
       SELECT t, u, copies, row_number() OVER w AS n,
              min(ts) OVER (w ROWS BETWEEN {span:UInt64} PRECEDING AND CURRENT ROW) AS lo,
              max(ts) OVER (w ROWS BETWEEN {span:UInt64} PRECEDING AND CURRENT ROW) AS hi
         FROM (SELECT uuid AS u, max(${time}) AS t, argMax(timestamp, ${time}) AS ts, count() AS copies FROM ${table} WHERE ${conditions.join(' AND ')} GROUP BY uuid)
       WINDOW w AS (ORDER BY t, u)
     ) WHERE n % {rows:UInt64} = 0 OR copies > 1 ORDER BY n`,
    {
      team: environmentId,
      end: clickhouseTime(window.end.toISOString()),
      ...(window.start ? { start: clickhouseTime(window.start.toISOString()) } : {}),
      ...(after ? { after_time: clickhouseTime(after.at), after_uuid: after.uuid } : {}),
      rows,
      span: rows - 1,
    },
    { output_format_json_quote_64bit_integers: 0 },
  );
  return {
    bounds: found.filter((row) => row.n % rows === 0).map((row) => ({ at: row.at, uuid: row.id, timestamps: { from: row.first, to: row.last } })),
    repeated: new Map(found.filter((row) => row.copies > 1).map((row) => [row.id, row.at])),
  };
}
