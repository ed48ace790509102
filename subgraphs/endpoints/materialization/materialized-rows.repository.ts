import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * JSON written per statement at most: a refresh's rows are capped in bytes as they are read
 * (QUERY_MAX_RESULT_BYTES), and are written in parts so that no one parameter holds them all.
 */
const WRITE_BYTES = 1_048_576;

/** The kept result of a materialized version: its rows in order, by team (written with plain SQL; see the migration). */
export async function replaceMaterializedRows(em: EntityManager, versionId: string, environmentId: number, rows: unknown[][]): Promise<void> {
  await em.execute('delete from "endpoints"."materialized_rows" where version_id = ?', [versionId]);
  let written = 0;
  for (const part of jsonParts(rows, WRITE_BYTES)) {
    await em.execute(
      `insert into "endpoints"."materialized_rows" (version_id, environment_id, ordinal, row)
       select ?, ?, ? + t.ordinal, t.value from jsonb_array_elements(?::jsonb) with ordinality as t(value, ordinal)`,
      [versionId, environmentId, written, part.json],
    );
    written += part.count;
  }
}

/** Rows as JSON arrays of about `bytes` each (a single larger row alone). */
function* jsonParts(rows: unknown[][], bytes: number): Generator<{ json: string; count: number }> {
  let pending: string[] = [];
  let size = 0;
  for (const row of rows) {
    const json = JSON.stringify(row);
    if (pending.length > 0 && size + json.length > bytes) {
      yield { json: `[${pending.join(',')}]`, count: pending.length };
      pending = [];
      size = 0;
    }
    pending.push(json);
    size += json.length + 1;
  }
  if (pending.length > 0) yield { json: `[${pending.join(',')}]`, count: pending.length };
}

export async function dropMaterializedRows(em: EntityManager, versionIds: string[]): Promise<void> {
  if (versionIds.length > 0) await em.execute('delete from "endpoints"."materialized_rows" where version_id = any(array[?]::uuid[])', [versionIds]);
}

/** At most `limit` kept rows of a version (and whether more are kept), read only within its environment. */
export async function readMaterializedRows(em: EntityManager, versionId: string, environmentId: number, limit: number): Promise<{ rows: unknown[][]; more: boolean }> {
  const found = await em.execute<{ row: unknown[] }[]>(
    'select row from "endpoints"."materialized_rows" where version_id = ? and environment_id = ? order by ordinal limit ?',
    [versionId, environmentId, limit + 1],
  );
  const rows = found.map((item) => item.row);
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}
