import type { ExecutionResult } from 'graphql';
import { NotFoundError } from '../subgraphs/shared/errors.js';
import { contractResponse } from './errors.js';
import { boundRoute, isCurrent, type Match, type PlacementKind } from './route-table.js';
import type { Logger } from '../subgraphs/shared/logger.js';
import type { RouterExecutor } from './router.ports.js';

const QUERY = 'query CurrentPlacement { current_placement { organization_id project_id environment_id } }';

interface Placement {
  organization_id: string | null;
  project_id: number | null;
  environment_id: number | null;
}

const idOf: Record<PlacementKind, (placement: Placement) => string | number | null> = {
  organization: (placement) => placement.organization_id,
  project: (placement) => placement.project_id,
  environment: (placement) => placement.environment_id,
};

/**
 * The route with each `@current` of its path replaced by the caller's placement, asked of the
 * router once (a request without one is answered as it came). The key's 401 or 403 of that
 * question is the answer; a user placed nowhere (no organization, or none of its environments
 * left) finds nothing: 404. The operation then checks its own scope and access on the ids.
 */
export async function bindCurrent(
  match: Extract<Match, { kind: 'route' }>,
  { execute, log }: { execute: RouterExecutor; log: Logger },
  authorization: string | null,
): Promise<Extract<Match, { kind: 'route' }> | Response> {
  const named = Object.entries(match.placements).filter(([name]) => isCurrent(match.params[name]));
  if (named.length === 0) return match;
  const result = (await execute({ query: QUERY, variables: {}, authorization })) as ExecutionResult<{ current_placement: Placement | null }>;
  const placement = result.data?.current_placement;
  if (!placement) return contractResponse(result.errors?.[0] ?? new NotFoundError(), log, result.errors);
  const values = { ...match.params };
  for (const [name, kind] of named) {
    const id = idOf[kind](placement);
    if (id === null) return contractResponse(new NotFoundError(), log);
    values[name] = String(id);
  }
  return boundRoute(match.route, values, match.placements);
}
