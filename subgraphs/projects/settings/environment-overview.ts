import type { EntityManager } from '@mikro-orm/postgresql';
import { SETTING_NAMES } from './setting.catalog.js';
import { effectiveSettings, type Settings } from './settings.js';

/** An environment as a reader of its configuration sees it: names, whether events arrived, every setting. */
export interface EnvironmentOverview {
  id: number;
  name: string;
  project_id: number;
  project_name: string;
  ingested_event: boolean;
  settings: Record<string, unknown>;
}

/** Plain SQL on schema-qualified tables, so that any subgraph's connection can read it (through the facade). */
export async function environmentOverview(em: EntityManager, environmentId: number): Promise<EnvironmentOverview | null> {
  const [row] = await em.getConnection().execute<{ id: number; name: string; project_id: number; project_name: string; ingested_event: boolean; settings: Settings }[]>(
    `select e.id, e.name, e.project_id, p.name as project_name, e.ingested_event, e.settings
       from projects.environments e
       join projects.projects p on p.id = e.project_id and p.deleted_at is null
      where e.id = ?`,
    [environmentId],
  );
  if (!row) return null;
  return { ...row, settings: effectiveSettings(row.settings ?? {}, SETTING_NAMES) };
}
