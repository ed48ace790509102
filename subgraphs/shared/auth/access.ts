import { ForbiddenError } from '../errors.js';
import { MembershipLevel, type Actor, type ActorEnvironment } from './actor.js';

export const NO_PROJECT_ACCESS = "You don't have access to the project.";

/**
 * The environment (PostHog's team; `:project_id` under `/api/environments/`) if the actor's
 * user is a member of its organization. Services call this before touching tenant data.
 */
export function requireEnvironment(actor: Actor, environmentId: number): ActorEnvironment & { id: number } {
  const environment = actor.environments[String(environmentId)];
  if (!environment) throw new ForbiddenError(NO_PROJECT_ACCESS);
  return { id: environmentId, ...environment };
}

/** The actor's level in an organization, or a 403 when below `minimum`. */
export function requireOrganization(actor: Actor, organizationId: string, minimum: number = MembershipLevel.member): number {
  const level = actor.organizations[organizationId];
  if (level === undefined || level < minimum) throw new ForbiddenError();
  return level;
}

/** The calling user's id; resolvers reached by a personal API key always have one. */
export function requireUserId(actor: Actor): number {
  if (!actor.user) throw new ForbiddenError();
  return actor.user.id;
}
