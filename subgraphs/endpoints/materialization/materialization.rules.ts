import { ValidationError } from '../../shared/errors.js';
import { SYNC_FREQUENCIES, type EndpointVersion, type SyncFrequency } from '../endpoints/endpoint-version.entity.js';
import { prepareQuery, type PreparedQuery } from '../queries/query.node.js';

export const DEFAULT_SYNC_FREQUENCY: SyncFrequency = '24hour';

/** What a create or an update does to the materialization of the version it leaves current. */
export type MaterializationPlan = { action: 'keep' } | { action: 'disable' } | { action: 'enable'; frequency: SyncFrequency; restart: boolean };

/** Why a prepared query cannot be kept materialized, or null when it can. */
export function cannotMaterialize(prepared: PreparedQuery): string | null {
  if (prepared.variables.length > 0) return 'Queries with variables cannot be materialized: each run filters on values given at run time.';
  const breakdowns = (prepared.node.breakdownFilter as { breakdowns?: unknown[] } | undefined)?.breakdowns;
  if (Array.isArray(breakdowns) && breakdowns.length > 1) return 'Queries with multiple breakdowns cannot be materialized.';
  return null;
}

/** The verdict of a stored version (its parsed query comes from prepareQuery's memory after the first). */
export function materializationVerdict(version: EndpointVersion): Promise<string | null> {
  return prepareQuery(version.environment_id, version.query).then(cannotMaterialize, (error: Error) => `The query cannot run: ${error.message}`);
}

export interface MaterializationFields {
  is_active?: boolean | null;
  is_materialized?: boolean | null;
  sync_frequency?: string | null;
}

/** PostHog's rules for `is_materialized` and `sync_frequency` (its messages), given the endpoint's active state after the change. */
export function planMaterialization(active: boolean, version: EndpointVersion, prepared: PreparedQuery, fields: MaterializationFields): MaterializationPlan {
  const wanted = fields.is_materialized;
  const frequency = fields.sync_frequency;
  if (frequency !== null && frequency !== undefined && !(frequency in SYNC_FREQUENCIES)) {
    throw new ValidationError(`Invalid sync_frequency '${frequency}': expected one of ${Object.keys(SYNC_FREQUENCIES).join(', ')}.`, 'sync_frequency', 'invalid_choice');
  }
  if (!active) {
    if (wanted === true) throw new ValidationError('Cannot enable materialization on inactive endpoint.', 'is_materialized');
    if (frequency) throw new ValidationError('Cannot set sync_frequency on inactive endpoint.', 'sync_frequency');
    return version.is_materialized ? { action: 'disable' } : { action: 'keep' };
  }
  if (wanted === false) {
    if (frequency) throw new ValidationError('Cannot set sync_frequency when disabling materialization.', 'sync_frequency');
    return version.is_materialized ? { action: 'disable' } : { action: 'keep' };
  }
  if (wanted !== true && !(frequency && version.is_materialized)) return { action: 'keep' };
  const reason = cannotMaterialize(prepared);
  if (reason) throw new ValidationError(`Cannot materialize endpoint: ${reason}`, 'is_materialized');
  const chosen = (frequency ?? version.sync_frequency ?? DEFAULT_SYNC_FREQUENCY) as SyncFrequency;
  // A new frequency takes effect from the next refresh; enabling (again) refreshes now.
  return { action: 'enable', frequency: chosen, restart: !version.is_materialized };
}
