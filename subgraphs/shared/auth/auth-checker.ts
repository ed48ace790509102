import type { Actor } from './actor.js';
import { ForbiddenError, NotAuthenticatedError } from '../errors.js';
import { grants, INTERNAL, type RequiredScope } from './scopes.js';

export const PERSONAL_KEY_NOT_ALLOWED = 'This action does not support Personal API Key access';

/** Throws the 401 or 403 that `@Authorized(...required)` answers the actor; the router checks root fields with it too. */
export function requireScopes(actor: Actor, required: readonly RequiredScope[]): void {
  if (required.includes(INTERNAL)) {
    if (actor.kind === 'service') return;
    if (actor.kind === 'anonymous') throw new NotAuthenticatedError();
    throw new ForbiddenError(PERSONAL_KEY_NOT_ALLOWED);
  }
  if (actor.kind !== 'personal_api_key') throw new NotAuthenticatedError();
  const missing = required.find((scope) => !grants(actor.scopes, scope));
  if (missing) throw new ForbiddenError(`API key missing required scope '${missing}'`);
}
