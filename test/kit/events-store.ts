import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clickhouseFor } from '../../subgraphs/shared/clickhouse/clickhouse.registry.js';
import { sql } from './db.js';

/**
 * The events store the suites run on: PostgreSQL unless TEST_EVENTS_STORE=clickhouse, which gives
 * every stack of the run ClickHouse's engine in this process (chDB). One process holds one chDB
 * directory, so each test process has its own, and each PostgreSQL database of the run a
 * ClickHouse database of the same name in it: stacks of one database are one installation.
 */
export const TEST_EVENTS_STORE = process.env.TEST_EVENTS_STORE === 'clickhouse' ? 'clickhouse' : 'postgres';

/** CLICKHOUSE_URL for a stack on `databaseUrl` (none on PostgreSQL). */
export function eventsStoreEnv(databaseUrl: string): Record<string, string> {
  if (TEST_EVENTS_STORE !== 'clickhouse') return {};
  return { CLICKHOUSE_URL: testChdbUrl(new URL(databaseUrl).pathname.slice(1)) };
}

/** A chDB database of this test process's directory (the name made safe for ClickHouse). */
export function testChdbUrl(database: string): string {
  return `chdb:${join(tmpdir(), `analytics-chdb-${process.pid}`)}?database=${database.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** An event as stored, read from whichever store the installation of `databaseUrl` uses. */
export interface StoredEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  /** As stored: JSON text, with the digits and escapes it was sent with. */
  properties: string;
}

/** The environment's stored events, every row (a duplicate would show twice). */
export async function storedEvents(databaseUrl: string, environmentId: number): Promise<StoredEvent[]> {
  const clickhouse = clickhouseFor(databaseUrl);
  if (clickhouse) {
    const rows = await clickhouse.query<Omit<StoredEvent, 'uuid'> & { id: string }>(`SELECT toString(uuid) AS id, event, distinct_id, properties FROM ${clickhouse.database}.events WHERE team_id = {team:Int64} ORDER BY timestamp, uuid`, {
      team: environmentId,
    });
    return rows.map(({ id, ...row }) => ({ uuid: id, ...row }));
  }
  return sql<StoredEvent>(databaseUrl, 'select uuid::text as uuid, event, distinct_id, properties::text as properties from ingestion.events where environment_id = $1 order by timestamp, uuid', [environmentId]);
}

/** The environment's rows in PostgreSQL's events tables: the PostgreSQL store's, none on ClickHouse. */
export async function postgresEventRows(databaseUrl: string, environmentId: number): Promise<{ events: number; ids: number }> {
  const [row] = await sql<{ events: string; ids: string }>(
    databaseUrl,
    `select (select count(*) from ingestion.events where environment_id = $1) as events,
            (select count(*) from ingestion.event_ids where environment_id = $1) as ids`,
    [environmentId],
  );
  return { events: Number(row!.events), ids: Number(row!.ids) };
}

/**
 * JSON text without the whitespace between its tokens: PostgreSQL's jsonb writes `{"a": 1}`, the
 * text ClickHouse keeps is the batch's own. Digits and escapes are kept as they are.
 */
export function compactJson(text: string): string {
  let out = '';
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (inString) {
      out += char;
      if (char === '\\') out += text[++index] ?? '';
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (!/\s/.test(char)) out += char;
  }
  return out;
}
