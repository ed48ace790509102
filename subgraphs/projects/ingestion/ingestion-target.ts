import type { EntityManager } from '@mikro-orm/postgresql';
import { tokenHash } from '../../shared/secrets.js';

/** One of an environment's event ingestion restrictions, as ingestion applies it. */
export interface IngestionRestrictionRule {
  restriction_type: string;
  distinct_ids: string[];
  session_ids: string[];
  event_names: string[];
  event_uuids: string[];
  pipelines: string[];
}

/** Where a project API token sends events: its environment, with what ingestion needs to know. */
export interface IngestionTarget {
  environment_id: number;
  project_id: number;
  /** Whether the environment has taken an event before (then nothing needs marking). */
  ingested_event: boolean;
  restrictions: IngestionRestrictionRule[];
}

/**
 * The live environment whose project API token this is, or null (unknown, reset, or its project
 * deleted). Looked up by the token's hash on every batch, so a reset token stops at once. Plain
 * SQL on schema-qualified tables: any subgraph's connection can run it.
 */
export async function findIngestionTarget(em: EntityManager, token: string): Promise<IngestionTarget | null> {
  const [row] = await em.execute<IngestionTarget[]>(
    `select e.id as environment_id, e.project_id, e.ingested_event,
            coalesce((select json_agg(json_build_object(
                        'restriction_type', r.restriction_type, 'distinct_ids', r.distinct_ids, 'session_ids', r.session_ids,
                        'event_names', r.event_names, 'event_uuids', r.event_uuids, 'pipelines', r.pipelines) order by r.id)
                        from projects.ingestion_restrictions r where r.environment_id = e.id), '[]') as restrictions
       from projects.environments e
       join projects.projects p on p.id = e.project_id and p.deleted_at is null
      where e.api_token_hash = ?`,
    [tokenHash(token)],
  );
  return row ?? null;
}

/** Records that an environment has taken events (its `ingested_event`). */
export async function markIngested(em: EntityManager, environmentId: number): Promise<void> {
  await em.execute('update projects.environments set ingested_event = true where id = ? and not ingested_event', [environmentId]);
}

/**
 * Holds a project's row for the caller's transaction unless it is deleted (then false): a project
 * is deleted by setting `deleted_at`, which waits for the batches that hold it, so that none
 * writes events after its environments' data is gone.
 */
export async function holdLiveProject(em: EntityManager, projectId: number): Promise<boolean> {
  const rows = await em.execute('select 1 from projects.projects where id = ? and deleted_at is null for share', [projectId]);
  return rows.length > 0;
}
