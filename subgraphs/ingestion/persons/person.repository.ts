import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../shared/db/bound-query.js';
import { containsPattern } from '../../shared/db/like.js';
import type { Statement } from '../../shared/db/statement.js';
import type { PersonChanges, StoredPerson } from './person.book.js';

/** The persons these distinct ids of an environment name, by distinct id (one query). */
export async function loadPersons(em: EntityManager, environmentId: number, distinctIds: string[]): Promise<Map<string, StoredPerson>> {
  if (distinctIds.length === 0) return new Map();
  const rows = await executeBound<StoredPerson & { distinct_id: string }>(
    em,
    `select d.distinct_id, p.id, p.uuid, p.properties, p.is_identified, (extract(epoch from p.created_at) * 1000)::float8 as created_at
       from ingestion.person_distinct_ids d join ingestion.persons p on p.id = d.person_id
      where d.environment_id = ? and d.distinct_id = any (select jsonb_array_elements_text(?::jsonb))`,
    [environmentId, JSON.stringify(distinctIds)],
  );
  return new Map(rows.map((row) => [row.distinct_id, { ...row, id: String(row.id) }]));
}

/** A person merged away, as it was when deleted: the last state ClickHouse's mirror marks deleted. */
export interface DeletedPerson {
  uuid: string;
  version: number;
  is_identified: boolean;
  /** In milliseconds, as {@link StoredPerson}'s. */
  created_at: number;
}

/** Which rows {@link savePersons} wrote: what ClickHouse's mirror of them must write again. */
export interface WrittenPersons {
  /** Persons created or changed, by their PostgreSQL id. */
  persons: string[];
  /** Distinct ids given a person, or moved to another one. */
  distinct_ids: string[];
  deleted: DeletedPerson[];
}

/**
 * Writes what a batch changed, a statement per kind of change: new persons, then their ids (so
 * merges can point at them), merged persons' distinct ids moved before those persons go (the
 * mapping's foreign key would take the ids with them), then changed properties.
 */
export async function savePersons(em: EntityManager, environmentId: number, changes: PersonChanges): Promise<WrittenPersons> {
  const moved: string[] = [];
  let deleted: DeletedPerson[] = [];
  if (changes.created.length > 0) {
    const ids = await executeBound<{ id: string; uuid: string }>(
      em,
      `insert into ingestion.persons (environment_id, uuid, properties, is_identified, created_at, version)
       select ?, x.uuid, x.properties, x.is_identified, x.created_at, 0
         from jsonb_to_recordset(?::jsonb) as x(uuid uuid, properties jsonb, is_identified boolean, created_at timestamptz)
       returning id, uuid`,
      [environmentId, JSON.stringify(changes.created.map(personRow))],
    );
    const byUuid = new Map(ids.map((row) => [row.uuid, String(row.id)]));
    for (const state of changes.created) state.id = byUuid.get(state.uuid)!;
  }
  if (changes.merged.length > 0) {
    const rows = await executeBound<{ distinct_id: string }>(
      em,
      `update ingestion.person_distinct_ids d set person_id = x.into_id, version = d.version + 1
         from jsonb_to_recordset(?::jsonb) as x(from_id bigint, into_id bigint)
        where d.environment_id = ? and d.person_id = x.from_id
        returning d.distinct_id`,
      [JSON.stringify(changes.merged.map(({ from, into }) => ({ from_id: from.id, into_id: into.id }))), environmentId],
    );
    moved.push(...rows.map((row) => row.distinct_id));
  }
  if (changes.mappings.size > 0) {
    await executeBound(
      em,
      `insert into ingestion.person_distinct_ids (environment_id, distinct_id, person_id)
       select ?, x.distinct_id, x.person_id from jsonb_to_recordset(?::jsonb) as x(distinct_id text, person_id bigint)
       on conflict (environment_id, distinct_id) do update set person_id = excluded.person_id, version = person_distinct_ids.version + 1
       where person_distinct_ids.person_id <> excluded.person_id`,
      [environmentId, JSON.stringify([...changes.mappings].map(([distinct_id, state]) => ({ distinct_id, person_id: state.id })))],
    );
    // A person with a new distinct id has a new row in a persons export.
    const created = new Set(changes.created.map((state) => state.id));
    const renamed = [...new Set([...changes.mappings.values()].map((state) => state.id))].filter((id): id is string => id !== null && !created.has(id));
    if (renamed.length > 0) await em.execute('update ingestion.persons set updated_at = now() where id in (?)', [renamed]);
  }
  if (changes.merged.length > 0) {
    deleted = await em.execute<DeletedPerson[]>(
      `delete from ingestion.persons where id in (?)
       returning uuid, version, is_identified, (extract(epoch from created_at) * 1000)::float8 as created_at`,
      [changes.merged.map(({ from }) => from.id)],
    );
  }
  if (changes.updated.length > 0) {
    await executeBound(
      em,
      `update ingestion.persons p
          set properties = x.properties, is_identified = x.is_identified, created_at = x.created_at, version = p.version + 1, updated_at = now()
         from jsonb_to_recordset(?::jsonb) as x(id bigint, properties jsonb, is_identified boolean, created_at timestamptz)
        where p.id = x.id`,
      [JSON.stringify(changes.updated.map((state) => ({ id: state.id, ...personRow(state) })))],
    );
  }
  return {
    persons: [...changes.created, ...changes.updated].map((state) => state.id!),
    distinct_ids: [...changes.mappings.keys(), ...moved],
    deleted,
  };
}

function personRow(state: { uuid: string; properties: unknown; is_identified: boolean; created_at: number }) {
  return { uuid: state.uuid, properties: state.properties, is_identified: state.is_identified, created_at: new Date(state.created_at).toISOString() };
}

const MAX_DISTINCT_IDS = 1000;

/** A person as the read paths show it (timestamps as PostgreSQL's text: raw statements do not parse them). */
export interface PersonRow {
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: string;
  distinct_ids: string[] | null;
}

const SELECT = `select p.uuid, p.properties, p.is_identified, p.created_at,
  (select (array_agg(d.distinct_id order by d.distinct_id))[1:${MAX_DISTINCT_IDS}] from ingestion.person_distinct_ids d where d.person_id = p.id) as distinct_ids
  from ingestion.persons p`;

/** Which persons a list shows: the one a distinct id names, or those a search finds. */
export interface PersonFilter {
  distinct_id?: string | null;
  search?: string | null;
}

/**
 * The condition on `ingestion.persons p` of an environment's persons: the one a distinct id names,
 * or those with a property value or distinct id containing `search` (case-insensitive).
 */
function personCondition(environmentId: number, filter: PersonFilter): Statement {
  const parts = ['p.environment_id = ?'];
  const params: unknown[] = [environmentId];
  if (filter.distinct_id != null) {
    parts.push('p.id in (select person_id from ingestion.person_distinct_ids where environment_id = ? and distinct_id = ?)');
    params.push(environmentId, filter.distinct_id);
  }
  if (filter.search) {
    parts.push(`(exists (select 1 from jsonb_each_text(p.properties) e where e.value ilike ?)
             or exists (select 1 from ingestion.person_distinct_ids d where d.person_id = p.id and d.distinct_id ilike ?))`);
    params.push(containsPattern(filter.search), containsPattern(filter.search));
  }
  return { sql: parts.join(' and '), params };
}

/**
 * The statement of a page of persons newest first (by their earliest event). The order names the
 * table's columns, and `(environment_id, created_at, id)` holds it whole, so that a page walks
 * that index to its offset and stops, with no sort of the persons that share a time (an import's
 * may share one by the thousand).
 */
export function personsPageStatement(environmentId: number, filter: PersonFilter, window: { limit: number; offset: number }): Statement {
  const where = personCondition(environmentId, filter);
  return { sql: `${SELECT} where ${where.sql} order by p.created_at desc, p.id desc limit ? offset ?`, params: [...where.params, window.limit, window.offset] };
}

/** A page of an environment's persons, newest first, and how many the filter finds. */
export async function listPersons(
  em: EntityManager,
  environmentId: number,
  filter: PersonFilter,
  window: { limit: number; offset: number },
): Promise<{ rows: PersonRow[]; count: number }> {
  const page = personsPageStatement(environmentId, filter, window);
  const where = personCondition(environmentId, filter);
  const [rows, [total]] = await Promise.all([
    em.execute<PersonRow[]>(page.sql, page.params),
    em.execute<{ count: string }[]>(`select count(*) as count from ingestion.persons p where ${where.sql}`, where.params),
  ]);
  return { rows, count: Number(total!.count) };
}

export async function findPerson(em: EntityManager, environmentId: number, uuid: string): Promise<PersonRow | undefined> {
  const [row] = await em.execute<PersonRow[]>(`${SELECT} where p.environment_id = ? and p.uuid = ?`, [environmentId, uuid]);
  return row;
}
