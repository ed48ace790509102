import type { ExportColumn } from '../../formats/export-columns.js';

/** PostHog's events table of its PostgreSQL destination. */
export const EVENTS_TABLE: [string, string][] = [
  ['uuid', 'VARCHAR(200)'],
  ['event', 'VARCHAR(200)'],
  ['properties', 'JSONB'],
  ['elements', 'JSONB'],
  ['set', 'JSONB'],
  ['set_once', 'JSONB'],
  ['distinct_id', 'VARCHAR(200)'],
  ['team_id', 'INTEGER'],
  ['ip', 'VARCHAR(200)'],
  ['site_url', 'VARCHAR(200)'],
  ['timestamp', 'TIMESTAMP WITH TIME ZONE'],
];

/** PostHog's persons table: one row per distinct id, merged by (team_id, distinct_id). */
export const PERSONS_TABLE: [string, string][] = [
  ['team_id', 'INTEGER'],
  ['distinct_id', 'TEXT'],
  ['person_id', 'TEXT'],
  ['properties', 'JSONB'],
  ['person_distinct_id_version', 'BIGINT'],
  ['person_version', 'BIGINT'],
  ['created_at', 'TIMESTAMP WITH TIME ZONE'],
  ['_inserted_at', 'TIMESTAMP WITH TIME ZONE'],
  ['is_deleted', 'BOOLEAN'],
];

const TYPES: Record<string, string> = {
  Integer: 'BIGINT',
  Float: 'DOUBLE PRECISION',
  Boolean: 'BOOLEAN',
  DateTime: 'TIMESTAMP WITH TIME ZONE',
  Date: 'DATE',
  JSON: 'JSONB',
};

/** The columns of a table made for a query's columns (a `hogql_query` export). */
export function tableForColumns(columns: ExportColumn[]): [string, string][] {
  return columns.map((column) => [column.name, TYPES[column.type] ?? 'TEXT']);
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function createTableSql(schema: string, table: string, columns: [string, string][], primaryKey: string[] | null): string {
  const definitions = columns.map(([name, type]) => `${quoteIdent(name)} ${type}`);
  if (primaryKey) definitions.push(`PRIMARY KEY (${primaryKey.map(quoteIdent).join(', ')})`);
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.${quoteIdent(table)} (${definitions.join(', ')})`;
}

/**
 * Where a destination remembers the runs it holds, written in the same transaction as their rows:
 * a run found there was delivered, whatever happened to the process that delivered it.
 */
export const RUNS_TABLE = '_analytics_batch_export_runs';

export function createRunsTableSql(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.${quoteIdent(RUNS_TABLE)} (run_id UUID PRIMARY KEY, batch_export_id UUID NOT NULL, table_name TEXT NOT NULL, data_interval_start TIMESTAMP WITH TIME ZONE, data_interval_end TIMESTAMP WITH TIME ZONE NOT NULL, records BIGINT NOT NULL, delivered_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now())`;
}
