import { AppError } from '../../shared/errors.js';

/** Runs of one team in flight at once in this process; more wait for none and are refused (PostHog's 429). */
export const MAX_CONCURRENT_RUNS_PER_TEAM = Number(process.env.ENDPOINT_MAX_CONCURRENT_RUNS ?? 10);

class TooManyRunsError extends AppError {
  constructor() {
    super(429, 'throttled_error', 'throttled', 'Too many concurrent requests. Please try again later.');
  }
}

const inFlight = new Map<number, number>();

/** Runs `work` in one of the team's run slots, or refuses at once when all are taken. */
export async function withRunSlot<T>(teamId: number, work: () => Promise<T>): Promise<T> {
  const taken = inFlight.get(teamId) ?? 0;
  if (taken >= MAX_CONCURRENT_RUNS_PER_TEAM) throw new TooManyRunsError();
  inFlight.set(teamId, taken + 1);
  try {
    return await work();
  } finally {
    const left = (inFlight.get(teamId) ?? 1) - 1;
    if (left === 0) inFlight.delete(teamId);
    else inFlight.set(teamId, left);
  }
}
