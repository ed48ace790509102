import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade } from '../../projects/facade.js';
import type { Actor, EnvironmentPlacement } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { BatchExport } from './batch-export.entity.js';

/**
 * The environment of an operation: one the actor's organization holds (404 when it does not
 * exist, 403 when it is another organization's), or, for the platform's own internal callers,
 * any that exists.
 */
export async function environmentOf(em: EntityManager, actor: Actor, id: number): Promise<EnvironmentPlacement> {
  if (actor.kind !== 'service') return projectsFacade.reachEnvironment(em, actor, id);
  const placement = await projectsFacade.placeEnvironment(em, id);
  if (!placement) throw new NotFoundError();
  return placement;
}

/** An export of an environment the actor reaches; another environment's is "not found", as a missing one. */
export async function findExport(em: EntityManager, actor: Actor, environmentId: number, id: string): Promise<BatchExport> {
  const environment = await environmentOf(em, actor, environmentId);
  const found = isUuid(id) ? await em.findOne(BatchExport, { id, environment_id: environment.id }) : null;
  if (!found) throw new NotFoundError();
  return found;
}
