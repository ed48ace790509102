import type { EntityManager } from '@mikro-orm/postgresql';
import { requireEnvironment } from '../../shared/subgraph/access.js';
import type { Actor, EnvironmentPlacement } from '../../shared/auth/actor.js';
import { projectCacheOf } from '../projects/project.cache.js';

/**
 * The project and organization of each environment among `ids` that exists and is not being
 * deleted. Plain SQL on schema-qualified tables so any subgraph's connection can run it (through
 * the facade): one primary-key lookup per request instead of every environment in the actor.
 */
export async function placeEnvironments(em: EntityManager, ids: readonly number[]): Promise<Map<number, EnvironmentPlacement>> {
  const wanted = [...new Set(ids)].filter((id) => Number.isSafeInteger(id));
  if (wanted.length === 0) return new Map();
  const rows = await em.getConnection().execute<EnvironmentPlacement[]>(
    `select e.id, e.project_id, p.organization_id
       from projects.environments e
       join projects.projects p on p.id = e.project_id and p.deleted_at is null
      where e.id in (?)`,
    [wanted],
  );
  return new Map(rows.map((row) => [row.id, { id: row.id, project_id: row.project_id, organization_id: row.organization_id }]));
}

/**
 * The placement of an environment the actor reaches: 404 when there is none, 403 when it is another
 * organization's. Recent placements are reused (see ProjectCache).
 */
export async function reachEnvironment(em: EntityManager, actor: Actor, id: number): Promise<EnvironmentPlacement> {
  const placement = await projectCacheOf(em.getDriver()).placements.one(id, async () => (await placeEnvironments(em, [id])).get(id));
  return requireEnvironment(actor, placement);
}
