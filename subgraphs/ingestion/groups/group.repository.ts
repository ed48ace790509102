import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../shared/db/bound-query.js';
import { containsPattern } from '../../shared/db/like.js';
import type { Statement } from '../../shared/db/statement.js';
import type { ProfileEntry } from '../profiles/profile-entry.js';

/** A group of an environment, by its type's index and its key. */
export interface GroupKey {
  group_type_index: number;
  group_key: string;
}

/**
 * Applies group updates in one upsert: updates of one group are merged first, in order (later
 * `$group_set` values win), then merged over the stored properties; `created_at` is the earliest
 * update's time. Answers the groups it wrote.
 *
 * `updated_at` only grows for a group, even for a pass whose transaction began before the one it
 * waited for (`now()` is a transaction's start): ClickHouse's mirror keeps a group's row with the
 * greatest `updated_at`, so a later write must never carry an earlier time.
 */
export async function saveGroups(em: EntityManager, environmentId: number, entries: ProfileEntry[]): Promise<GroupKey[]> {
  const merged = new Map<string, { group_type_index: number; group_key: string; group_properties: Record<string, unknown>; created_at: number }>();
  for (const { group, time } of entries) {
    if (!group) continue;
    const key = `${group.group_type_index}:${group.group_key}`;
    const known = merged.get(key);
    if (known) {
      known.group_properties = { ...known.group_properties, ...group.group_set };
      known.created_at = Math.min(known.created_at, time);
    } else {
      merged.set(key, { group_type_index: group.group_type_index, group_key: group.group_key, group_properties: { ...group.group_set }, created_at: time });
    }
  }
  if (merged.size === 0) return [];
  const rows = [...merged.values()].map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString() }));
  await executeBound(
    em,
    `insert into ingestion.groups (environment_id, group_type_index, group_key, group_properties, created_at, updated_at)
     select ?, x.group_type_index, x.group_key, x.group_properties, x.created_at, now()
       from jsonb_to_recordset(?::jsonb) as x(group_type_index smallint, group_key text, group_properties jsonb, created_at timestamptz)
     on conflict (environment_id, group_type_index, group_key) do update
        set group_properties = groups.group_properties || excluded.group_properties,
            created_at = least(groups.created_at, excluded.created_at),
            updated_at = greatest(now(), groups.updated_at + interval '1 microsecond')`,
    [environmentId, JSON.stringify(rows)],
  );
  return rows.map(({ group_type_index, group_key }) => ({ group_type_index, group_key }));
}

/** A group as the read paths show it (timestamps as PostgreSQL's text). */
export interface GroupRow {
  group_type_index: number;
  group_key: string;
  group_properties: Record<string, unknown>;
  created_at: string;
}

const SELECT = 'select group_type_index, group_key, group_properties, created_at from ingestion.groups';

/** Which groups a list shows: one type's, those whose key or a property value contains `search`. */
export interface GroupFilter {
  group_type_index: number;
  search?: string | null;
}

function groupCondition(environmentId: number, filter: GroupFilter): Statement {
  let sql = 'groups.environment_id = ? and groups.group_type_index = ?';
  const params: unknown[] = [environmentId, filter.group_type_index];
  if (filter.search) {
    sql += ' and (groups.group_key ilike ? or exists (select 1 from jsonb_each_text(groups.group_properties) e where e.value ilike ?))';
    params.push(containsPattern(filter.search), containsPattern(filter.search));
  }
  return { sql, params };
}

/**
 * The statement of a page of one type's groups, newest first, then by key: the order of the
 * (environment, type, created_at desc, key) index, which a page walks to its offset instead of
 * sorting every group of the type.
 */
export function groupsPageStatement(environmentId: number, filter: GroupFilter, window: { limit: number; offset: number }): Statement {
  const where = groupCondition(environmentId, filter);
  return { sql: `${SELECT} where ${where.sql} order by groups.created_at desc, groups.group_key limit ? offset ?`, params: [...where.params, window.limit, window.offset] };
}

/** A page of one type's groups, newest first, and how many the filter finds. */
export async function listGroups(
  em: EntityManager,
  environmentId: number,
  filter: GroupFilter,
  window: { limit: number; offset: number },
): Promise<{ rows: GroupRow[]; count: number }> {
  const page = groupsPageStatement(environmentId, filter, window);
  const where = groupCondition(environmentId, filter);
  const [rows, [total]] = await Promise.all([
    em.execute<GroupRow[]>(page.sql, page.params),
    em.execute<{ count: string }[]>(`select count(*) as count from ingestion.groups where ${where.sql}`, where.params),
  ]);
  return { rows, count: Number(total!.count) };
}

export async function findGroup(em: EntityManager, environmentId: number, groupTypeIndex: number, groupKey: string): Promise<GroupRow | undefined> {
  const [row] = await em.execute<GroupRow[]>(`${SELECT} where environment_id = ? and group_type_index = ? and group_key = ?`, [environmentId, groupTypeIndex, groupKey]);
  return row;
}
