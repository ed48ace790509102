/** The type of an exported column, as the HogQL compiler names it. */
export type ColumnType = 'String' | 'Integer' | 'Float' | 'Boolean' | 'DateTime' | 'Date' | 'UUID' | 'JSON' | 'Array' | 'Tuple' | 'Null' | 'Unknown';

export interface ExportColumn {
  name: string;
  type: ColumnType;
}

/**
 * Rows of one page of a run, in the columns' order. Values are what the query reader answers:
 * numbers, booleans, texts; times as ISO 8601 texts in UTC (microseconds kept); JSON columns as
 * their JSON text; null for null.
 */
export interface ExportPage {
  columns: ExportColumn[];
  rows: unknown[][];
}

/** Microseconds since the epoch of an ISO 8601 text in UTC (`2026-01-05T10:00:00.123456Z`). */
export function epochMicros(iso: string): bigint {
  const match = /\.(\d{1,6})Z$/.exec(iso);
  const fraction = match ? match[1]!.padEnd(6, '0') : '000000';
  const seconds = Math.floor(Date.parse(match ? iso.replace(/\.\d+Z$/, 'Z') : iso) / 1000);
  return BigInt(seconds) * 1_000_000n + BigInt(fraction);
}
