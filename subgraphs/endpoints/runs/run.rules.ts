import { ValidationError } from '../../shared/errors.js';
import type { PreparedQuery } from '../queries/query.node.js';

export type RefreshMode = 'cache' | 'force' | 'direct';

/** PostHog's older refresh names still accepted, mapped to today's. */
const REFRESH_ALIASES: Record<string, RefreshMode> = {
  cache: 'cache',
  force: 'force',
  direct: 'direct',
  blocking: 'cache',
  async: 'cache',
  lazy_async: 'cache',
  force_blocking: 'force',
  force_async: 'force',
  force_cache: 'cache',
  true: 'force',
  false: 'cache',
};

/** Keys of a run answer shown only with `debug` (PostHog strips them otherwise). */
export const DEBUG_KEYS = ['calculation_trigger', 'cache_key', 'explain', 'modifiers', 'resolved_date_range', 'timings', 'hogql'];

export interface RunRequest {
  refresh?: string | null;
  limit?: number | null;
  query_override?: unknown;
  filters_override?: unknown;
  variables?: unknown;
}

export function refreshMode(value: string | null | undefined, materialized: boolean): RefreshMode {
  if (value === null || value === undefined || value === '') return 'cache';
  const mode = Object.hasOwn(REFRESH_ALIASES, value) ? REFRESH_ALIASES[value] : undefined;
  if (!mode) throw new ValidationError(`Invalid refresh mode '${value}': expected cache, force or direct.`, 'refresh', 'invalid_choice');
  if (mode === 'direct' && !materialized) {
    throw new ValidationError(
      "'direct' refresh mode is only valid for materialized endpoints. Use 'cache' or 'force' instead, or enable materialization on this endpoint.",
      'refresh',
    );
  }
  return mode;
}

/** The checks PostHog makes before a run, in its order and with its messages. */
export function checkRunRequest(request: RunRequest, prepared: PreparedQuery): void {
  if (request.query_override !== null && request.query_override !== undefined) {
    throw new ValidationError('query_override is not allowed. Use variables instead.', 'query_override');
  }
  if (request.limit !== null && request.limit !== undefined) {
    if (!Number.isInteger(request.limit) || request.limit <= 0) throw new ValidationError(`Invalid limit parameter: ${request.limit}`, 'limit');
    if (prepared.kind !== 'HogQLQuery') throw new ValidationError(`Limit parameter is only supported for HogQLQuery, not ${prepared.kind}`, 'limit');
  }
  if (prepared.kind === 'HogQLQuery' && request.filters_override !== null && request.filters_override !== undefined) {
    throw new ValidationError('filters_override is not supported for HogQLQuery endpoints. Use variables instead.', 'filters_override');
  }
}

/** The run's variables: an object (or its JSON text, as a query string carries it) whose keys the query knows. */
export function runVariables(raw: unknown, known: string[]): Record<string, unknown> {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new ValidationError('variables must be a JSON object.', 'variables');
    }
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ValidationError('variables must be an object.', 'variables');
  const unknown = Object.keys(value).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new ValidationError(`Unknown variable(s): ${unknown.join(', ')}`, 'variables');
  return value as Record<string, unknown>;
}
