import type { EntityManager } from '@mikro-orm/postgresql';
import type { Settings } from '../settings/settings.js';
import { containsPattern } from '../../shared/db/like.js';

/** What the list shows of a project and its primary environment, read without hydrating entities. */
export interface ProjectListRow {
  id: number;
  uuid: string;
  organization_id: string;
  name: string;
  api_token_sealed: string;
  ingested_event: boolean;
  settings: Settings;
}

/**
 * The list of an organization's projects, newest first, in one statement: the page joined to its
 * primary environments, and the count of the whole list beside it (on every row, or on the one row
 * of nulls an empty page leaves). PostgreSQL reads a page of 100 in a fraction of what hydrating
 * its entities cost Node; one round trip instead of two saves each request a connection and a
 * statement's overhead.
 */
export async function listProjects(
  em: EntityManager,
  organizationId: string,
  search: string | undefined,
  window: { limit: number; offset: number },
): Promise<{ rows: ProjectListRow[]; count: number }> {
  // `name ilike ?`, without folding every name (see Project.name_folded).
  const match = search ? `and p.name_folded like lower(?)` : '';
  const params = search ? [organizationId, containsPattern(search)] : [organizationId];
  const where = `p.organization_id = ? and p.deleted_at is null ${match}`;
  // Two independent subqueries: a CTE shared by both would be materialized (every project) and sorted.
  const found = await em.getConnection().execute<(ProjectListRow & { total: string })[]>(
    `select page.*, total.total
       from (select count(*) as total from projects.projects p where ${where}) total
       left join lateral (
         select p.id, p.uuid, p.organization_id, p.name, e.api_token_sealed, e.ingested_event, e.settings
           from projects.projects p
           join projects.environments e on e.id = p.id
          where ${where}
          order by p.id desc
          limit ? offset ?
       ) page on true`,
    [...params, ...params, window.limit, window.offset],
  );
  const count = Number(found[0]?.total ?? 0);
  const rows: ProjectListRow[] = found.filter((row) => row.id !== null);
  return { rows, count };
}

/** One environment in the list's basic form (PostHog's basic team: a user's current `team`). */
export async function basicEnvironmentRow(em: EntityManager, id: number): Promise<ProjectListRow | undefined> {
  const [row] = await em.getConnection().execute<ProjectListRow[]>(
    `select e.id, e.uuid, p.organization_id, e.name, e.api_token_sealed, e.ingested_event, e.settings
       from projects.environments e
       join projects.projects p on p.id = e.project_id and p.deleted_at is null
      where e.id = ?`,
    [id],
  );
  return row;
}
