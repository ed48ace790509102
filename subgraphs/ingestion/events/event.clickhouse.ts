import { createHash } from 'node:crypto';
import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { ClickHouseDdl } from '../../shared/clickhouse/clickhouse.ddl.js';
import type { CapturedEvent } from '../capture/captured-event.js';
import { ENVIRONMENT_TABLES, EVENTS } from '../clickhouse/clickhouse.tables.js';
import type { EventQuery } from './event-condition.js';
import type { EventPosition } from './event-cursor.js';
import type { EventRow, EventStore, PendingInsert, StoredBatch, TrendInterval } from './event-store.ports.js';

/** ClickHouse's DateTime64 text of a stored time (`2024-05-01T12:00:00.123456Z` → `2024-05-01 12:00:00.123456`). */
export function clickhouseTime(iso: string): string {
  return iso.replace('T', ' ').replace(/Z$/, '');
}

/**
 * An event's columns as the event API answers them. The time's text is `time`, not `timestamp`:
 * ClickHouse lets an alias stand for its expression in every clause, so an alias `timestamp`
 * would turn the conditions and the order on the column into ones on text.
 */
const COLUMNS = `toString(uuid) AS id, distinct_id, event, properties, formatDateTime(timestamp, '%Y-%m-%dT%H:%i:%S.%fZ') AS time`;

const BUCKETS: Record<TrendInterval, string> = {
  hour: 'toStartOfHour(timestamp)',
  day: 'toStartOfDay(timestamp)',
  week: 'toDateTime(toStartOfWeek(timestamp, 1))',
  month: 'toDateTime(toStartOfMonth(timestamp))',
};

/** Which events to read: ClickHouse conditions on `events` with their bound parameters. */
interface Condition {
  sql: string;
  params: Record<string, unknown>;
}

function condition(query: EventQuery): Condition {
  const parts = ['team_id = {team:Int64}'];
  const params: Record<string, unknown> = { team: query.environmentId };
  const add = (sql: string, name: string, value: unknown) => {
    parts.push(sql);
    params[name] = value;
  };
  if (query.event !== null) add('event = {event:String}', 'event', query.event);
  if (query.distinct_id !== null) add('distinct_id = {distinct_id:String}', 'distinct_id', query.distinct_id);
  if (query.after !== null) add("timestamp >= {after:DateTime64(6, 'UTC')}", 'after', clickhouseTime(query.after));
  if (query.before !== null) add("timestamp < {before:DateTime64(6, 'UTC')}", 'before', clickhouseTime(query.before));
  return { sql: parts.join(' AND '), params };
}

/** The deduplication token of an insert of these events: the same for the same uuids, in the same order. */
function insertToken(environmentId: number, events: Pick<CapturedEvent, 'uuid'>[]): string {
  const token = createHash('sha256').update(String(environmentId));
  for (const event of events) token.update(` ${event.uuid}`);
  return token.digest('hex');
}

/** An event as `events` takes it: its fields as stored, and when the platform stored it (now, unless given). */
export type EventInsert = Pick<CapturedEvent, 'uuid' | 'event' | 'properties' | 'timestamp' | 'distinct_id'> & { created_at?: string };

type StoredRow = Omit<EventRow, 'properties' | 'timestamp'> & { properties: string; time: string };

function eventRow({ time, properties, ...row }: StoredRow): EventRow {
  return { ...row, timestamp: time, properties: JSON.parse(properties) as Record<string, unknown> };
}

/**
 * The events store on ClickHouse. A batch's events are checked against those the environment
 * holds (by uuid, within the days the batch names, which the sorting key leads with), then the
 * fresh ones are left to one synchronous insert, made once the batch's transaction committed,
 * whose deduplication token is made of their uuids: a retry that reaches the insert again (a
 * process killed after ClickHouse took the rows) inserts nothing, and rows of one event that
 * still meet are collapsed by the ReplacingMergeTree.
 */
export class ClickHouseEvents implements EventStore {
  private static readonly stores = new WeakMap<ClickHouse, ClickHouseEvents>();
  private readonly ddl: ClickHouseDdl;

  private constructor(private readonly clickhouse: ClickHouse) {
    this.ddl = new ClickHouseDdl(clickhouse.database, clickhouse.cluster);
  }

  static of(clickhouse: ClickHouse): ClickHouseEvents {
    let store = ClickHouseEvents.stores.get(clickhouse);
    if (!store) ClickHouseEvents.stores.set(clickhouse, (store = new ClickHouseEvents(clickhouse)));
    return store;
  }

  private get events(): string {
    return this.ddl.table(EVENTS.name);
  }

  async prepare(): Promise<void> {}

  async store(_tx: unknown, environmentId: number, events: CapturedEvent[]): Promise<StoredBatch> {
    const seen = await this.seen(environmentId, events);
    const landed = [...seen];
    // The first of a batch's events with one uuid is stored, as PostgreSQL's insert keeps it.
    const fresh = events.filter((event) => !seen.has(event.uuid) && (seen.add(event.uuid), true));
    return { fresh, landed, pending: fresh.length > 0 ? this.pending(environmentId, fresh) : null };
  }

  private pending(environmentId: number, fresh: CapturedEvent[]): PendingInsert {
    const token = insertToken(environmentId, fresh);
    return {
      token,
      events: fresh.map(({ uuid, timestamp }) => ({ uuid, timestamp })),
      insert: () => this.write(environmentId, fresh, token),
      landed: async () => {
        const seen = await this.seen(environmentId, fresh);
        return fresh.every((event) => seen.has(event.uuid));
      },
    };
  }

  retryable(): boolean {
    return false;
  }

  async page(_em: unknown, query: EventQuery, after: EventPosition | null, limit: number): Promise<EventRow[]> {
    const where = condition(query);
    const position = after ? " AND (timestamp, uuid) < ({after_time:DateTime64(6, 'UTC')}, {after_uuid:UUID})" : '';
    const params = { ...where.params, limit, ...(after ? { after_time: clickhouseTime(after.timestamp), after_uuid: after.uuid } : {}) };
    const rows = await this.clickhouse.query<StoredRow>(
      `SELECT ${COLUMNS} FROM ${this.events} WHERE ${where.sql}${position} ORDER BY timestamp DESC, uuid DESC LIMIT 1 BY uuid LIMIT {limit:UInt32}`,
      params,
    );
    return rows.map(eventRow);
  }

  async count(_em: unknown, query: EventQuery): Promise<number> {
    const where = condition(query);
    const [row] = await this.clickhouse.query<{ count: string }>(`SELECT uniqExact(uuid) AS count FROM ${this.events} WHERE ${where.sql}`, where.params);
    return Number(row!.count);
  }

  async find(_em: unknown, environmentId: number, uuid: string): Promise<EventRow | null> {
    const [row] = await this.clickhouse.query<StoredRow>(`SELECT ${COLUMNS} FROM ${this.events} WHERE team_id = {team:Int64} AND uuid = {uuid:UUID} LIMIT 1`, { team: environmentId, uuid });
    return row ? eventRow(row) : null;
  }

  async trend(_em: unknown, query: EventQuery, interval: TrendInterval): Promise<{ bucket: string; count: number }[]> {
    const where = condition(query);
    const rows = await this.clickhouse.query<{ bucket: string; count: string }>(
      `SELECT formatDateTime(${BUCKETS[interval]}, '%Y-%m-%dT%H:%i:%SZ', 'UTC') AS bucket, uniqExact(uuid) AS count FROM ${this.events} WHERE ${where.sql} GROUP BY bucket ORDER BY bucket`,
      where.params,
    );
    return rows.map((row) => ({ bucket: row.bucket, count: Number(row.count) }));
  }

  async deleteEnvironments(_em: unknown, environmentIds: number[]): Promise<void> {
    for (const table of ENVIRONMENT_TABLES) {
      await this.clickhouse.command(`ALTER TABLE ${this.ddl.storageOf(table)}${this.ddl.onCluster} DELETE WHERE team_id IN {teams:Array(Int64)}`, { teams: environmentIds });
    }
  }

  /** The uuids of `events` the environment holds already (looked for within the days they name). */
  async seen(environmentId: number, events: Pick<CapturedEvent, 'uuid' | 'timestamp'>[]): Promise<Set<string>> {
    const days = [...new Set(events.map((event) => event.timestamp.slice(0, 10)))];
    // `id`, not `uuid`: an alias would stand for the column in the condition (see COLUMNS).
    const rows = await this.clickhouse.query<{ id: string }>(
      `SELECT DISTINCT toString(uuid) AS id FROM ${this.events} WHERE team_id = {team:Int64} AND toDate(timestamp) IN {days:Array(Date)} AND uuid IN {uuids:Array(UUID)}`,
      { team: environmentId, days, uuids: events.map((event) => event.uuid) },
    );
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Inserts events of the environment in one synchronous insert, deduplicated by a token of their
   * uuids; each stored now unless it says when it was (`created_at`, a copy from PostgreSQL).
   */
  insert(environmentId: number, events: EventInsert[]): Promise<void> {
    return this.write(environmentId, events, insertToken(environmentId, events));
  }

  private async write(environmentId: number, events: EventInsert[], token: string): Promise<void> {
    const now = clickhouseTime(new Date().toISOString());
    await this.clickhouse.insert({
      table: this.events,
      columns: ['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'created_at'],
      format: 'JSONCompactEachRow',
      values: events.map((event) => [event.uuid, event.event, event.properties, clickhouseTime(event.timestamp), environmentId, event.distinct_id, event.created_at ? clickhouseTime(event.created_at) : now]),
      clickhouse_settings: { insert_deduplication_token: token, insert_deduplicate: 1, insert_distributed_sync: 1 },
    });
  }
}
