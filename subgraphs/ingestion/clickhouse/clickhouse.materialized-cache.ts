import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { clickhouseWithDatabase } from '../../shared/clickhouse/clickhouse.registry.js';
import { readMaterializedColumns } from './clickhouse.materialized.js';

/**
 * How long this process trusts what it last read of the events table's columns: a column made by
 * `npm run events:materialize` is read by a running platform at most this long after it is filled.
 */
export const MATERIALIZED_COLUMNS_REFRESH_MS = 60_000;

/** Filled columns by property (`$browser` → `mat_$browser`). */
export type ReadyColumns = ReadonlyMap<string, string>;

interface Known {
  columns: ReadyColumns;
  readAt: number;
  reading: boolean;
}

const NONE: ReadyColumns = new Map();
const known = new WeakMap<ClickHouse, Known>();

/**
 * The filled materialized columns of the events table in `database`, as this process last read
 * them; when that is older than the refresh interval (or never happened), they are read again in
 * the background and a later call sees them. Printing a query is synchronous, so one printing sees
 * one answer throughout: its table subquery and its property reads agree.
 */
export function readyMaterializedColumns(database: string): ReadyColumns {
  const clickhouse = clickhouseWithDatabase(database);
  if (!clickhouse) return NONE;
  const entry = known.get(clickhouse);
  if (!entry || (!entry.reading && Date.now() - entry.readAt >= MATERIALIZED_COLUMNS_REFRESH_MS)) void refreshMaterializedColumns(clickhouse).catch(() => {});
  return entry?.columns ?? NONE;
}

/**
 * Reads the filled columns now and keeps them (a failed read keeps what was known, and is tried
 * again after the interval: a query of the JSON answers the same, only slower).
 */
export async function refreshMaterializedColumns(clickhouse: ClickHouse): Promise<ReadyColumns> {
  const entry = known.get(clickhouse) ?? { columns: NONE, readAt: 0, reading: false };
  known.set(clickhouse, { ...entry, reading: true });
  try {
    const columns = new Map((await readMaterializedColumns(clickhouse)).filter((column) => column.ready).map((column) => [column.property, column.column]));
    known.set(clickhouse, { columns, readAt: Date.now(), reading: false });
    return columns;
  } catch (error) {
    known.set(clickhouse, { ...entry, readAt: Date.now(), reading: false });
    throw error;
  }
}
