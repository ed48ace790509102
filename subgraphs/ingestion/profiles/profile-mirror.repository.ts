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

/** What a person's mirror row is made of, from `ingestion.persons` as `p`. */
const PERSON_COLUMNS = `p.uuid::text as id, to_char(p.created_at at time zone 'UTC', ${CLICKHOUSE_TIME}) as created_at, p.environment_id as team_id,
            p.properties::text as properties, p.is_identified::int as is_identified, 0 as is_deleted, p.version`;
/** A distinct id's mirror row, from `ingestion.person_distinct_ids` as `d` joined to its person as `p`. */
const DISTINCT_ID_COLUMNS = 'd.environment_id as team_id, d.distinct_id, p.uuid::text as person_id, 0 as is_deleted, d.version';
/** A group's mirror row, from `ingestion.groups` as `g`. */
const GROUP_COLUMNS = `g.group_type_index, g.group_key, to_char(g.created_at at time zone 'UTC', ${CLICKHOUSE_TIME}) as created_at, g.environment_id as team_id,
            g.group_properties::text as group_properties, to_char(g.updated_at at time zone 'UTC', ${CLICKHOUSE_TIME}) as _timestamp`;

async function personRows(em: EntityManager, environmentId: number, ids: string[]): Promise<PersonMirrorRow[]> {
  if (ids.length === 0) return [];
  return executeBound<PersonMirrorRow>(
    em,
    `select ${PERSON_COLUMNS} from ingestion.persons p where p.environment_id = ? and p.id = any (select jsonb_array_elements_text(?::jsonb)::bigint)`,
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
    `select ${DISTINCT_ID_COLUMNS}
       from ingestion.person_distinct_ids d join ingestion.persons p on p.id = d.person_id
      where d.environment_id = ? and d.distinct_id = any (select jsonb_array_elements_text(?::jsonb))`,
    [environmentId, JSON.stringify(distinctIds)],
  );
}

async function groupRows(em: EntityManager, environmentId: number, keys: GroupKey[]): Promise<GroupMirrorRow[]> {
  if (keys.length === 0) return [];
  return executeBound<GroupMirrorRow>(
    em,
    `select ${GROUP_COLUMNS}
       from ingestion.groups g
      where g.environment_id = ?
        and (g.group_type_index, g.group_key) in (select x.group_type_index, x.group_key from jsonb_to_recordset(?::jsonb) as x(group_type_index smallint, group_key text))`,
    [environmentId, JSON.stringify(keys)],
  );
}

/** Where a walk of an environment's mirror rows stands: the last key of each table it has passed. */
export interface MirrorPosition {
  /** A person's (created_at, id), the order of the (environment, created_at) index. */
  person: { created_at: string; id: string } | null;
  distinct_id: string | null;
  group: GroupKey | null;
}

/** A page of an environment's mirror rows, and where the next page starts; null when the walk is over. */
export interface MirrorPage {
  rows: MirrorRows;
  next: MirrorPosition | null;
}

/**
 * The next `limit` rows of the environment's mirror after `from`, table by table (persons, then
 * distinct ids, then groups), each walked off an index of the environment in a fixed order.
 */
export async function mirrorRowsPage(em: EntityManager, environmentId: number, from: MirrorPosition, limit: number): Promise<MirrorPage> {
  const empty: MirrorRows = { persons: [], distinct_ids: [], groups: [] };
  const persons = await personsAfter(em, environmentId, from.person, limit);
  if (persons.length > 0) {
    const last = persons.at(-1)!;
    return { rows: { ...empty, persons: persons.map(({ key_id: _id, key_at: _at, ...row }) => row) }, next: { ...from, person: { created_at: last.key_at, id: last.key_id } } };
  }
  const distinctIds = await distinctIdsAfter(em, environmentId, from.distinct_id, limit);
  if (distinctIds.length > 0) return { rows: { ...empty, distinct_ids: distinctIds }, next: { ...from, distinct_id: distinctIds.at(-1)!.distinct_id } };
  const groups = await groupsAfter(em, environmentId, from.group, limit);
  if (groups.length > 0) {
    const { group_type_index, group_key } = groups.at(-1)!;
    return { rows: { ...empty, groups }, next: { ...from, group: { group_type_index, group_key } } };
  }
  return { rows: empty, next: null };
}

/** Persons in (created_at, id) order, the (environment, created_at) index's, with that key as text. */
function personsAfter(em: EntityManager, environmentId: number, after: MirrorPosition['person'], limit: number) {
  return executeBound<PersonMirrorRow & { key_id: string; key_at: string }>(
    em,
    `select ${PERSON_COLUMNS}, p.id::text as key_id, to_char(p.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.USOF') as key_at
       from ingestion.persons p
      where p.environment_id = ?${after ? ' and (p.created_at, p.id) > (?::timestamptz, ?::bigint)' : ''}
      order by p.created_at, p.id limit ?`,
    [environmentId, ...(after ? [after.created_at, after.id] : []), limit],
  );
}

function distinctIdsAfter(em: EntityManager, environmentId: number, after: string | null, limit: number): Promise<DistinctIdMirrorRow[]> {
  return executeBound<DistinctIdMirrorRow>(
    em,
    `select ${DISTINCT_ID_COLUMNS}
       from ingestion.person_distinct_ids d join ingestion.persons p on p.id = d.person_id
      where d.environment_id = ?${after === null ? '' : ' and d.distinct_id > ?'}
      order by d.distinct_id limit ?`,
    [environmentId, ...(after === null ? [] : [after]), limit],
  );
}

function groupsAfter(em: EntityManager, environmentId: number, after: GroupKey | null, limit: number): Promise<GroupMirrorRow[]> {
  return executeBound<GroupMirrorRow>(
    em,
    `select ${GROUP_COLUMNS}
       from ingestion.groups g
      where g.environment_id = ?${after ? ' and (g.group_type_index, g.group_key) > (?::smallint, ?)' : ''}
      order by g.group_type_index, g.group_key limit ?`,
    [environmentId, ...(after ? [after.group_type_index, after.group_key] : []), limit],
  );
}
