import type { ExportColumn } from './export-columns.js';

/**
 * One JSON object per line, keys in the columns' order, as PostHog's JSONLines files hold them:
 * JSON columns (`properties`) as objects, times as ISO 8601 texts.
 */
export function jsonLinesEncoder(columns: ExportColumn[]): (rows: unknown[][]) => string {
  const keys = columns.map((column, index) => `${index === 0 ? '{' : ','}${JSON.stringify(column.name)}:`);
  const json = columns.map((column) => column.type === 'JSON');
  return (rows) => {
    let text = '';
    for (const row of rows) {
      for (let index = 0; index < keys.length; index++) {
        const value = row[index];
        text += keys[index]!;
        // A JSON column arrives as valid JSON text, written by PostgreSQL.
        text += value === null || value === undefined ? 'null' : json[index] ? (value as string) : JSON.stringify(value);
      }
      text += keys.length === 0 ? '{}\n' : '}\n';
    }
    return text;
  };
}
