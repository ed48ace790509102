import type { EntityManager } from '@mikro-orm/postgresql';

/** The columns of a persons export (PostHog's persons model), one row per distinct id. */
export const PERSON_EXPORT_COLUMNS = [
  { name: 'team_id', type: 'Integer' },
  { name: 'distinct_id', type: 'String' },
  { name: 'person_id', type: 'UUID' },
  { name: 'properties', type: 'JSON' },
  { name: 'person_distinct_id_version', type: 'Integer' },
  { name: 'person_version', type: 'Integer' },
  { name: 'created_at', type: 'DateTime' },
  { name: '_inserted_at', type: 'DateTime' },
  { name: 'is_deleted', type: 'Boolean' },
] as const;

/** Where a persons page ended: persons come in (last change, id) order, their distinct ids in order. */
export interface PersonKeyset {
  updated_at: string;
  person: string;
  distinct_id: string;
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * One page of the persons that changed in `[start, end)`, each with every distinct id it has now,
 * after `after`. Times are ISO 8601 in UTC with microseconds, so that a keyset read back is exact.
 */
export async function readPersonsPage(
  em: EntityManager,
  environmentId: number,
  window: { start: Date | null; end: Date },
  after: PersonKeyset | null,
  limit: number,
): Promise<{ rows: unknown[][]; last: PersonKeyset | null }> {
  const rows = await em.execute<Record<string, unknown>[]>(
    `select p.environment_id as team_id, d.distinct_id, p.uuid::text as person_id, p.properties::text as properties,
            d.version as person_distinct_id_version, p.version as person_version,
            to_char(p.created_at at time zone 'UTC', ${ISO}) as created_at,
            to_char(p.updated_at at time zone 'UTC', ${ISO}) as inserted_at,
            p.id::text as person_key
       from ingestion.persons p
       join ingestion.person_distinct_ids d on d.environment_id = p.environment_id and d.person_id = p.id
      where p.environment_id = ? and p.updated_at < ? ${window.start ? 'and p.updated_at >= ?' : ''}
        ${after ? 'and (p.updated_at, p.id, d.distinct_id) > (?::timestamptz, ?::bigint, ?)' : ''}
      order by p.updated_at, p.id, d.distinct_id
      limit ?`,
    [environmentId, window.end, ...(window.start ? [window.start] : []), ...(after ? [after.updated_at, after.person, after.distinct_id] : []), limit],
  );
  const last = rows.at(-1);
  return {
    rows: rows.map((row) => [row.team_id, row.distinct_id, row.person_id, row.properties, Number(row.person_distinct_id_version), Number(row.person_version), row.created_at, row.inserted_at, false]),
    last: last ? { updated_at: String(last.inserted_at), person: String(last.person_key), distinct_id: String(last.distinct_id) } : null,
  };
}
