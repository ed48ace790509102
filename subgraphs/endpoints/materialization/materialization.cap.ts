import type { EntityManager } from '@mikro-orm/postgresql';
import { config } from '../../shared/config.js';
import { ValidationError } from '../../shared/errors.js';
import type { MaterializationPlan } from './materialization.rules.js';

/** The advisory lock ("mtrl") under which an environment's materialized endpoints are counted and added. */
const MATERIALIZED_LOCK = 0x6d74726c;

/** Why an endpoint of an environment at its cap cannot be materialized (ENDPOINT_MAX_MATERIALIZED). */
export function capReason(max = config().ENDPOINT_MAX_MATERIALIZED): string {
  return `This environment already has ${max} materialized endpoints, the most it may have: disable materialization on another endpoint first.`;
}

/** Materialized endpoints of an environment, but for `except` (the one being changed). */
export async function countMaterialized(em: EntityManager, environmentId: number, except: string | null = null): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>(
    'select count(distinct endpoint_id)::int as n from "endpoints"."endpoint_versions" where environment_id = ? and is_materialized and endpoint_id is distinct from ?',
    [environmentId, except],
  );
  return Number(row?.n ?? 0);
}

/** The cap's reason when the environment has no room for one more materialized endpoint, else null. */
export async function capVerdict(em: EntityManager, environmentId: number): Promise<string | null> {
  const max = config().ENDPOINT_MAX_MATERIALIZED;
  return (await countMaterialized(em, environmentId)) >= max ? capReason(max) : null;
}

/**
 * The plan as the environment's cap allows (in the caller's transaction, counted under a lock so
 * that concurrent changes cannot pass it together). Materializing one more past the cap is a 400
 * naming `is_materialized`; an endpoint being created is still created, only not materialized (its
 * `materialization` says why), as a create materializes whenever it can.
 */
export async function withinCap(em: EntityManager, environmentId: number, endpointId: string, plan: MaterializationPlan, creating: boolean): Promise<MaterializationPlan> {
  if (plan.action !== 'enable' || !plan.restart) return plan;
  const max = config().ENDPOINT_MAX_MATERIALIZED;
  await em.execute('select pg_advisory_xact_lock(?, ?)', [MATERIALIZED_LOCK, environmentId]);
  if ((await countMaterialized(em, environmentId, endpointId)) < max) return plan;
  if (creating) return { action: 'keep' };
  throw new ValidationError(`Cannot materialize endpoint: ${capReason(max)}`, 'is_materialized');
}
