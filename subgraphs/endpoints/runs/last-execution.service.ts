import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { ValidationError } from '../../shared/errors.js';
import { projectsFacade } from '../../projects/facade.js';
import { isValidName, NAME_RULE } from '../endpoints/endpoint.rules.js';

/** The window `last_execution_times` looks back over (the API document's limit). */
const WINDOW_MONTHS = 6;
const MAX_NAMES = 1_000;

/**
 * When each named endpoint last ran through a personal API key, from the run log of the past six
 * months, in PostHog's query-status envelope (`results`: `[name, ISO time or null]` per name).
 */
export async function lastExecutionTimes(em: EntityManager, actor: Actor, environmentId: number, names: string[]): Promise<Record<string, unknown>> {
  const environment = await projectsFacade.reachEnvironment(em, actor, environmentId);
  if (names.length > MAX_NAMES) throw new ValidationError(`Ensure this field has no more than ${MAX_NAMES} elements.`, 'names', 'max_length');
  const bad = names.findIndex((name) => !isValidName(name));
  if (bad >= 0) throw new ValidationError(NAME_RULE, `names__${bad}`);
  const unique = [...new Set(names)];
  const started = performance.now();
  const rows = unique.length === 0 ? [] : await em.execute<{ endpoint_name: string; last: Date; runs: string; bytes: string }[]>(
    `select endpoint_name, max(started_at) as last, count(*) as runs, sum(pg_column_size(r.*)) as bytes from "endpoints"."endpoint_runs" r
     where environment_id = ? and endpoint_name = any(array[?]::text[]) and by_personal_api_key and error is null
       and started_at > now() - make_interval(months => ?)
     group by endpoint_name`,
    [environment.id, unique, WINDOW_MONTHS],
  );
  const elapsedMs = performance.now() - started;
  const last = new Map(rows.map((row) => [row.endpoint_name, new Date(row.last).toISOString()]));
  return {
    query_status: {
      id: '',
      team_id: environment.id,
      complete: true,
      error: false,
      error_message: null,
      query_async: false,
      results: unique.map((name) => [name, last.get(name) ?? null]),
      dashboard_id: null,
      insight_id: null,
      labels: null,
      start_time: null,
      end_time: null,
      expiration_time: null,
      pickup_time: null,
      task_id: null,
      query_progress: progressOf(rows, elapsedMs),
    },
  };
}

/**
 * The lookup's progress in the fields of PostHog's query status: the run-log rows it read and their
 * bytes (PostgreSQL's size of each row), the time it took in seconds, and that time in microseconds
 * as its CPU time (an upper bound: PostgreSQL does not report a statement's CPU).
 */
function progressOf(rows: { runs: string; bytes: string }[], elapsedMs: number): Record<string, number> {
  const read = rows.reduce((sum, row) => sum + Number(row.runs), 0);
  return {
    rows_read: read,
    bytes_read: rows.reduce((sum, row) => sum + Number(row.bytes), 0),
    estimated_rows_total: read,
    time_elapsed: Number((elapsedMs / 1000).toFixed(6)),
    active_cpu_time: Math.round(elapsedMs * 1000),
  };
}
