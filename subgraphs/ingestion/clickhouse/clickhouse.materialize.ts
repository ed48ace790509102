import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { ClickHouseDdl } from '../../shared/clickhouse/clickhouse.ddl.js';
import { addMaterializedColumn, markMaterializedColumnReady, materializedColumnName, readMaterializedColumns } from './clickhouse.materialized.js';
import { EVENTS } from './clickhouse.tables.js';

/** How a fill stands: the parts of the events table its mutation still has to rewrite, on every replica. */
export interface FillProgress {
  column: string;
  partsDone: number;
  partsTotal: number;
}

/** What materializing one property did. */
export interface MaterializeOutcome {
  property: string;
  column: string;
  /** `already`: the column was there and filled; nothing was done. */
  state: 'already' | 'materialized';
  seconds: number;
}

/** ClickHouse stopped a fill with an error (it goes on retrying it): the command run again waits for it. */
export class FillFailedError extends Error {}

const POLL_MS = 500;

/**
 * Makes `property` a materialized column of the events table, filled for every row: adds it (new
 * rows get it from ClickHouse on insert), computes it for the older parts (MATERIALIZE COLUMN, a
 * background mutation followed in system.mutations until it is done on every replica), then marks
 * it filled, which is when queries start reading it. Idempotent: a filled column is left alone, and
 * a run cut short goes on where it stopped (its column kept, a fill still running waited for).
 */
export async function materializeProperty(clickhouse: ClickHouse, property: string, onProgress: (progress: FillProgress) => void = () => {}): Promise<MaterializeOutcome> {
  const started = Date.now();
  const ddl = new ClickHouseDdl(clickhouse.database, clickhouse.cluster);
  const known = (await readMaterializedColumns(clickhouse)).find((candidate) => candidate.property === property);
  const seconds = () => (Date.now() - started) / 1000;
  if (known?.ready) return { property, column: known.column, state: 'already', seconds: seconds() };
  const column = known?.column ?? materializedColumnName(property, await columnNames(clickhouse));
  if (!known) for (const statement of addMaterializedColumn(ddl, property, column)) await clickhouse.command(statement);
  await fill(clickhouse, ddl, column, onProgress);
  for (const statement of markMaterializedColumnReady(ddl, property, column)) await clickhouse.command(statement);
  return { property, column, state: 'materialized', seconds: seconds() };
}

async function columnNames(clickhouse: ClickHouse): Promise<Set<string>> {
  const rows = await clickhouse.query<{ name: string }>('SELECT name FROM system.columns WHERE database = {database:String} AND table = {table:String}', { database: clickhouse.database, table: EVENTS.name });
  return new Set(rows.map((row) => row.name));
}

/**
 * Runs the column's mutation and waits for it, reporting its parts: a mutation of it still pending
 * (a run before this one was cut short) is waited for rather than started again.
 */
async function fill(clickhouse: ClickHouse, ddl: ClickHouseDdl, column: string, onProgress: (progress: FillProgress) => void): Promise<void> {
  let pending = await pendingMutations(clickhouse, ddl, column);
  if (pending.length === 0) {
    // In the background: the writer's connection otherwise waits for mutations to end.
    await clickhouse.command(ddl.materializeColumn(EVENTS, column), {}, { mutations_sync: '0' });
    pending = await pendingMutations(clickhouse, ddl, column);
  }
  let total = 0;
  while (pending.length > 0) {
    const failure = pending.find((mutation) => mutation.latest_fail_reason !== '');
    if (failure) throw new FillFailedError(`filling ${column} failed on ClickHouse: ${failure.latest_fail_reason.split('\n')[0]}`);
    const left = pending.reduce((sum, mutation) => sum + Number(mutation.parts_to_do), 0);
    total = Math.max(total, left);
    onProgress({ column, partsDone: total - left, partsTotal: total });
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    pending = await pendingMutations(clickhouse, ddl, column);
  }
  onProgress({ column, partsDone: total, partsTotal: total });
}

interface MutationRow {
  parts_to_do: number | string;
  latest_fail_reason: string;
}

/** The column's MATERIALIZE COLUMN mutations not yet done, on every replica of the events' rows. */
function pendingMutations(clickhouse: ClickHouse, ddl: ClickHouseDdl, column: string): Promise<MutationRow[]> {
  const table = ddl.storageOf(EVENTS).slice(`${ddl.database}.`.length);
  // ClickHouse writes the command back as it formats it: the name quoted or not.
  const name = column.replace(/[$]/g, '\\$');
  return clickhouse.query<MutationRow>(
    `SELECT parts_to_do, latest_fail_reason FROM ${ddl.systemTable('mutations')} WHERE database = {database:String} AND table = {table:String} AND is_done = 0 AND match(command, {pattern:String})`,
    { database: ddl.database, table, pattern: `MATERIALIZE COLUMN (\`${name}\`|${name})([^0-9A-Za-z_$]|$)` },
  );
}
