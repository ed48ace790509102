import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../shared/db/bound-query.js';
import type { GroupKey } from '../groups/group.repository.js';
import type { DeletedPerson } from '../persons/person.repository.js';
import type { ProfileMirror } from './profile-mirror.queue.js';

/** A row of ClickHouse's `person`, as JSONEachRow gives it. */
export interface PersonMirrorRow {
  id: string;
  created_at: string;
  team_id: number;
  properties: string;
  is_identified: number;
  is_deleted: number;
  version: number;
}

/** A row of ClickHouse's `person_distinct_id2`. */
export interface DistinctIdMirrorRow {
  team_id: number;
  distinct_id: string;
  person_id: string;
  is_deleted: number;
  version: number;
}

/** A row of ClickHouse's `groups`. */
export interface GroupMirrorRow {
  group_type_index: number;
  group_key: string;
  created_at: string;
  team_id: number;
  group_properties: string;
  _timestamp: string;
}

export interface MirrorRows {
  persons: PersonMirrorRow[];
  distinct_ids: DistinctIdMirrorRow[];
  groups: GroupMirrorRow[];
}

/** ClickHouse's DateTime64 text, in UTC, to the microsecond PostgreSQL keeps. */
const CLICKHOUSE_TIME = `'YYYY-MM-DD HH24:MI:SS.US'`;

/**
 * The rows a record names, as PostgreSQL holds them now (a row gone since is left out: the record
 * of the pass that removed it carries its end), and merged persons as deleted.
 */
export async function mirrorRows(em: EntityManager, environmentId: number, mirror: ProfileMirror): Promise<MirrorRows> {
  return {
    persons: [...(await personRows(em, environmentId, mirror.persons)), ...(await deletedRows(em, environmentId, mirror.deleted))],
    distinct_ids: await distinctIdRows(em, environmentId, mirror.distinct_ids),
    groups: await groupRows(em, environmentId, mirror.groups),
  };
}

async function personRows(em: EntityManager, environmentId: number, ids: string[]): Promise<PersonMirrorRow[]> {
  if (ids.length === 0) return [];
  return executeBound<PersonMirrorRow>(
    em,
    `select uuid::text as id, to_char(created_at at time zone 'UTC', ${CLICKHOUSE_TIME}) as created_at, environment_id as team_id,
            properties::text as properties, is_identified::int as is_identified, 0 as is_deleted, version
       from ingestion.persons
      where environment_id = ? and id = any (select jsonb_array_elements_text(?::jsonb)::bigint)`,
    [environmentId, JSON.stringify(ids)],
  );
}

/** A merged person's row, deleted one version past its last: it outranks every row of it written before. */
async function deletedRows(em: EntityManager, environmentId: number, deleted: DeletedPerson[]): Promise<PersonMirrorRow[]> {
  if (deleted.length === 0) return [];
  return executeBound<PersonMirrorRow>(
    em,
    `select x.uuid as id, to_char(to_timestamp(x.created_at / 1000) at time zone 'UTC', ${CLICKHOUSE_TIME}) as created_at, ?::int as team_id,
            '{}' as properties, x.is_identified::int as is_identified, 1 as is_deleted, x.version + 1 as version
       from jsonb_to_recordset(?::jsonb) as x(uuid text, version int, is_identified boolean, created_at float8)`,
    [environmentId, JSON.stringify(deleted)],
  );
}

async function distinctIdRows(em: EntityManager, environmentId: number, distinctIds: string[]): Promise<DistinctIdMirrorRow[]> {
  if (distinctIds.length === 0) return [];
  return executeBound<DistinctIdMirrorRow>(
    em,
    `select d.environment_id as team_id, d.distinct_id, p.uuid::text as person_id, 0 as is_deleted, d.version
       from ingestion.person_distinct_ids d join ingestion.persons p on p.id = d.person_id
      where d.environment_id = ? and d.distinct_id = any (select jsonb_array_elements_text(?::jsonb))`,
    [environmentId, JSON.stringify(distinctIds)],
  );
}

async function groupRows(em: EntityManager, environmentId: number, keys: GroupKey[]): Promise<GroupMirrorRow[]> {
  if (keys.length === 0) return [];
  return executeBound<GroupMirrorRow>(
    em,
    `select g.group_type_index, g.group_key, to_char(g.created_at at time zone 'UTC', ${CLICKHOUSE_TIME}) as created_at, g.environment_id as team_id,
            g.group_properties::text as group_properties, to_char(g.updated_at at time zone 'UTC', ${CLICKHOUSE_TIME}) as _timestamp
       from ingestion.groups g
      where g.environment_id = ?
        and (g.group_type_index, g.group_key) in (select x.group_type_index, x.group_key from jsonb_to_recordset(?::jsonb) as x(group_type_index smallint, group_key text))`,
    [environmentId, JSON.stringify(keys)],
  );
}
