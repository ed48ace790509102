import { copyText } from '../../../shared/db/copy.js';
import type { ExportColumn } from '../../formats/export-columns.js';

/** How a value goes into a destination column of a PostgreSQL type. */
export type TargetKind = 'jsonb' | 'other';

/** A JSON text for a jsonb column: JSON columns as they come, texts that hold an object or list as they are, other values as JSON. */
function asJson(value: unknown, isJsonColumn: boolean): string {
  if (isJsonColumn) return value as string;
  if (typeof value === 'string') {
    const first = value.trimStart()[0];
    if (first === '{' || first === '[') {
      try {
        JSON.parse(value);
        return value;
      } catch {
        // Text that only looks like JSON: written as a JSON string below.
      }
    }
  }
  return JSON.stringify(value);
}

/** Encodes rows as COPY text lines for the given destination columns (source columns by index). */
export function copyEncoder(columns: ExportColumn[], sources: number[], kinds: TargetKind[]): (rows: unknown[][]) => string {
  const encoders = sources.map((source, index) => {
    const column = columns[source]!;
    if (kinds[index] === 'jsonb') return (value: unknown) => copyText(asJson(value, column.type === 'JSON'));
    if (column.type === 'Boolean') return (value: unknown) => (value ? 't' : 'f');
    return (value: unknown) => copyText(typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value));
  });
  return (rows) => {
    let text = '';
    for (const row of rows) {
      for (let index = 0; index < sources.length; index++) {
        const value = row[sources[index]!];
        if (index > 0) text += '\t';
        text += value === null || value === undefined ? '\\N' : encoders[index]!(value);
      }
      text += '\n';
    }
    return text;
  };
}
