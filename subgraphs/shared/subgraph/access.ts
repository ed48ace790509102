import { ForbiddenError, NotFoundError } from '../errors.js';
import { MembershipLevel, type Actor, type EnvironmentPlacement } from '../auth/actor.js';
import { grants, type RequiredScope } from '../auth/scopes.js';

export const NO_PROJECT_ACCESS = "You don't have access to the project.";

/**
 * The environment (PostHog's team; `:project_id` under `/api/environments/`) if the actor's user
 * is a member of its organization: as PostHog answers, an environment that does not exist (or is
 * being deleted) is 404 and one of another organization 403. Services call this, with the
 * placement the projects facade looked up, before touching tenant data.
 */
export function requireEnvironment(actor: Actor, placement: EnvironmentPlacement | undefined): EnvironmentPlacement {
  if (!placement) throw new NotFoundError();
  if (!belongsTo(actor, placement.organization_id)) throw new ForbiddenError(NO_PROJECT_ACCESS);
  return placement;
}

/** The actor's level in an organization, or a 403 (with `detail`, if given) when below `minimum`. */
export function requireOrganization(actor: Actor, organizationId: string, minimum: number = MembershipLevel.member, detail?: string): number {
  const level = belongsTo(actor, organizationId) ? actor.organizations[organizationId]! : 0;
  if (level === 0 || level < minimum) throw new ForbiddenError(detail);
  return level;
}

/** Whether the actor is at least an admin of an organization. */
export function isAdmin(actor: Actor, organizationId: string): boolean {
  return belongsTo(actor, organizationId) && actor.organizations[organizationId]! >= MembershipLevel.admin;
}

/**
 * Membership tests on the actor's maps by own keys only: an id such as `constructor` or
 * `__proto__` must not find something inherited.
 */
export function belongsTo(actor: Actor, organizationId: string): boolean {
  return Object.hasOwn(actor.organizations, organizationId);
}

/** The calling user's id; resolvers reached by a personal API key always have one. */
export function requireUserId(actor: Actor): number {
  if (!actor.user) throw new ForbiddenError();
  return actor.user.id;
}

/**
 * For operations open to anonymous callers (a mailed token is their credential): a personal API
 * key must still hold `scope`, as on every other operation of its object.
 */
export function requireScopeOfKey(actor: Actor, scope: RequiredScope): void {
  if (actor.kind === 'personal_api_key' && !grants(actor.scopes, scope)) throw new ForbiddenError(`API key missing required scope '${scope}'`);
}
