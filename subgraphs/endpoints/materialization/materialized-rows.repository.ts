import type { EntityManager } from '@mikro-orm/postgresql';

/** The kept result of a materialized version: its rows in order, by team (written with plain SQL; see the migration). */
export async function replaceMaterializedRows(em: EntityManager, versionId: string, environmentId: number, rows: unknown[][]): Promise<void> {
  await em.execute('delete from "endpoints"."materialized_rows" where version_id = ?', [versionId]);
  if (rows.length === 0) return;
  await em.execute(
    `insert into "endpoints"."materialized_rows" (version_id, environment_id, ordinal, row)
     select ?, ?, t.ordinal, t.value from jsonb_array_elements(?::jsonb) with ordinality as t(value, ordinal)`,
    [versionId, environmentId, JSON.stringify(rows)],
  );
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
