import type { EntityManager } from '@mikro-orm/postgresql';

/** PostHog's limit: a project has at most five group types, at indexes 0 to 4. */
export const MAX_GROUP_TYPES = 5;

/**
 * Mappings read before, by database and project: a mapping never changes once made (nothing
 * renames or removes one, and a deleted project's id is never used again), so a batch whose types
 * are all known here reads nothing. Only committed reads go in (see `groupTypeIndexes`).
 */
const known = new Map<string, Map<string, number>>();
const MAX_KNOWN_PROJECTS = 10_000;

function remember(cacheKey: string, indexes: Map<string, number>): void {
  if (known.size >= MAX_KNOWN_PROJECTS) known.clear();
  known.set(cacheKey, indexes);
}

/** Serialises the creation of one project's group types (the second key is the project id). */
const GROUP_TYPES_LOCK = 0x67727074;

export interface GroupTypeIndexes {
  /** Group type name → its index, for every name that has one. */
  indexes: Map<string, number>;
  /** Names that got no index: the project had all five already. */
  refused: string[];
}

/**
 * The index of each group type of a project, mapping names seen for the first time to the next
 * free indexes (PostHog's GroupTypeMapping). Runs in the caller's transaction: new mappings are
 * undone with it, and concurrent batches of the project wait for each other only when one of them
 * brings a new name.
 */
export async function groupTypeIndexes(em: EntityManager, projectId: number, names: string[]): Promise<GroupTypeIndexes> {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return { indexes: new Map(), refused: [] };
  const cacheKey = `${String(em.config.get('clientUrl'))}\n${projectId}`;
  const cached = known.get(cacheKey);
  if (cached && settled(cached, wanted)) return answer(cached, wanted);
  let indexes = await readIndexes(em, projectId);
  if (settled(indexes, wanted)) {
    remember(cacheKey, indexes);
    return answer(indexes, wanted);
  }
  await em.execute('select pg_advisory_xact_lock(?, ?)', [GROUP_TYPES_LOCK, projectId]);
  indexes = await readIndexes(em, projectId);
  const taken = new Set(indexes.values());
  const refused: string[] = [];
  const created: { group_type: string; group_type_index: number }[] = [];
  for (const name of wanted.filter((candidate) => !indexes.has(candidate))) {
    const free = [...Array(MAX_GROUP_TYPES).keys()].find((index) => !taken.has(index));
    if (free === undefined) {
      refused.push(name);
      continue;
    }
    taken.add(free);
    indexes.set(name, free);
    created.push({ group_type: name, group_type_index: free });
  }
  if (created.length > 0) {
    await em.execute(
      `insert into projects.group_types (project_id, group_type, group_type_index, created_at)
       select ?, x.group_type, x.group_type_index, now() from jsonb_to_recordset(?::jsonb) as x(group_type text, group_type_index smallint)`,
      [projectId, JSON.stringify(created)],
    );
  }
  return { indexes, refused };
}

/** Nothing to create: every name has its index, or the project has all five (the rest are refused without a lock). */
function settled(indexes: Map<string, number>, wanted: string[]): boolean {
  return indexes.size >= MAX_GROUP_TYPES || wanted.every((name) => indexes.has(name));
}

function answer(indexes: Map<string, number>, wanted: string[]): GroupTypeIndexes {
  return { indexes, refused: wanted.filter((name) => !indexes.has(name)) };
}

async function readIndexes(em: EntityManager, projectId: number): Promise<Map<string, number>> {
  const rows = await em.execute<{ group_type: string; group_type_index: number }[]>(
    'select group_type, group_type_index from projects.group_types where project_id = ?',
    [projectId],
  );
  return new Map(rows.map((row) => [row.group_type, row.group_type_index]));
}
