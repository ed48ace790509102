import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { ThrottledError } from '../subgraphs/shared/errors.js';
import type { Config } from '../subgraphs/shared/config.js';
import { ALLOWED, limitsOf, rateLimiter, type RateLimit, type RateLimiter, type Verdict } from '../subgraphs/shared/rate-limit.js';
import type { Authenticator } from './auth.js';
import { graphqlErrorResponse } from './errors.js';

/**
 * A personal API key's rate, as PostHog throttles its API (a burst per minute and a sustained rate
 * per hour, by key): the key is resolved as for the request itself (cached); a request without a
 * key, or with one that is refused, is not counted here (it is answered 401).
 */
function personalKeyThrottle(authenticator: Authenticator, limiter: RateLimiter, limits: readonly RateLimit[]): (authorization: string | undefined) => Promise<Verdict> {
  return async (authorization) => {
    if (!authorization || limits.length === 0) return ALLOWED;
    const actor = await authenticator.actorFor(authorization).catch(() => undefined);
    if (actor?.kind !== 'personal_api_key' || !actor.key_id) return ALLOWED;
    return limiter.take(`personal-key:${actor.key_id}`, limits);
  };
}

/** The personal-key throttle the settings ask for: counted in Redis with REDIS_URL, in memory otherwise. */
export async function configuredKeyThrottle(authenticator: Authenticator, settings: Config): Promise<(authorization: string | undefined) => Promise<Verdict>> {
  return personalKeyThrottle(authenticator, await rateLimiter(settings), limitsOf(settings.RATE_LIMIT_PERSONAL_KEY_PER_MINUTE, settings.RATE_LIMIT_PERSONAL_KEY_PER_HOUR));
}

/**
 * The same throttle as a gateway plugin, for a Hive Gateway that serves /graphql on its own (the
 * CLI): `npm start`'s listener throttles before the gateway instead.
 */
export function useKeyThrottle(throttle: (authorization: string | undefined) => Promise<Verdict>): GatewayPlugin {
  return {
    async onRequest({ request, endResponse }) {
      const verdict = await throttle(request.headers.get('authorization') ?? undefined);
      if (!verdict.allowed) endResponse(graphqlErrorResponse(new ThrottledError(verdict.retryAfterSeconds)));
    },
  };
}
