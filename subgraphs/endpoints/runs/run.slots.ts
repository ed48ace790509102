import { config } from '../../shared/config.js';
import { AppError } from '../../shared/errors.js';

class TooManyRunsError extends AppError {
  constructor() {
    super(429, 'throttled_error', 'throttled', 'Too many concurrent requests. Please try again later.');
  }
}

const inFlight = new Map<number, number>();

/**
 * Runs `work` in one of the team's run slots (ENDPOINT_MAX_CONCURRENT_RUNS in this process), or
 * refuses at once when all are taken (PostHog's 429).
 */
export async function withRunSlot<T>(teamId: number, work: () => Promise<T>): Promise<T> {
  const taken = inFlight.get(teamId) ?? 0;
  if (taken >= config().ENDPOINT_MAX_CONCURRENT_RUNS) throw new TooManyRunsError();
  inFlight.set(teamId, taken + 1);
  try {
    return await work();
  } finally {
    const left = (inFlight.get(teamId) ?? 1) - 1;
    if (left === 0) inFlight.delete(teamId);
    else inFlight.set(teamId, left);
  }
}
