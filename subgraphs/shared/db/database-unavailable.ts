/**
 * Whether an error says the database cannot be reached or has gone (it stopped, restarted, was
 * dropped, refuses connections, or none could be had in time), rather than that a statement was
 * wrong: such a failure is the upstream's, answered 503 so that clients retry (PostHog's capture
 * answers "transient error, please retry"), not a defect of ours.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // An HTTP call (a provider, a destination) that could not connect is another upstream's failure.
  if (error instanceof TypeError && error.message === 'fetch failed') return false;
  return someCause(error, ({ code, name, message }) => {
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    if (name === 'KnexTimeoutError') return true;
    return typeof message === 'string' && /^Connection terminated|^Client has encountered a connection error/.test(message);
  });
}

/**
 * Whether PostgreSQL would not let the platform in: an unknown role, a wrong password, no user
 * name, no pg_hba.conf entry, or TLS that the server does not offer. At start-up, as for a server
 * that cannot be reached, DATABASE_URL is the setting to correct.
 */
export function isLoginRefused(error: unknown): boolean {
  return someCause(error, ({ code, message }) => code === '28000' || code === '28P01' || (typeof message === 'string' && /does not support SSL|SSL (?:is )?required/.test(message)));
}

/** Whether the error, or a cause of it (five deep at most), passes `test`. */
function someCause(error: unknown, test: (cause: { code?: unknown; name?: unknown; message?: unknown }) => boolean): boolean {
  for (let cause = error, depth = 0; cause && typeof cause === 'object' && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (test(cause as { code?: unknown; name?: unknown; message?: unknown })) return true;
  }
  return false;
}

/** PostgreSQL's codes for a server that is going or gone, and Node's for one that cannot be reached. */
const UNAVAILABLE_CODES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '3D000', // invalid_catalog_name: the database was dropped
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
