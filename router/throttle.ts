import { ALLOWED, type RateLimit, type RateLimiter, type Verdict } from '../subgraphs/shared/rate-limit.js';
import type { Authenticator } from './auth.js';

/**
 * A personal API key's rate, as PostHog throttles its API (a burst per minute and a sustained rate
 * per hour, by key): the key is resolved as for the request itself (cached); a request without a
 * key, or with one that is refused, is not counted here (it is answered 401).
 */
export function personalKeyThrottle(authenticator: Authenticator, limiter: RateLimiter, limits: readonly RateLimit[]): (authorization: string | undefined) => Promise<Verdict> {
  return async (authorization) => {
    if (!authorization || limits.length === 0) return ALLOWED;
    const actor = await authenticator.actorFor(authorization).catch(() => undefined);
    if (actor?.kind !== 'personal_api_key' || !actor.key_id) return ALLOWED;
    return limiter.take(`personal-key:${actor.key_id}`, limits);
  };
}
