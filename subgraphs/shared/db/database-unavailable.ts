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
    // 55000 (object_not_in_prerequisite_state) also names defects of a statement (`currval` before
    // `nextval`): only the server's refusals of connections or of all commands are an outage.
    if (code === '55000' && typeof message === 'string' && REFUSED_STATE.test(message)) return true;
    if (name === 'KnexTimeoutError') return true;
    // knex puts the statement before the driver's words (`select … - Connection terminated unexpectedly`);
    // `timeout expired` is node-postgres's for a connection not made within connectionTimeoutMillis.
    return typeof message === 'string' && /(?:^| - )(?:Connection terminated|Client has encountered a connection error|timeout expired$)/.test(message);
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

/**
 * PostgreSQL's words under 55000 for a database that takes no connections (ALLOW_CONNECTIONS
 * false) and for a server that stopped taking commands (wraparound protection).
 */
const REFUSED_STATE = /is not currently accepting connections|is not accepting commands/;

/** PostgreSQL's codes for a server that is going or gone, and Node's for one that cannot be reached. */
const UNAVAILABLE_CODES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '57P04', // database_dropped
  '57P05', // idle_session_timeout: the server closed a connection the pool still held
  '53300', // too_many_connections
  '3D000', // invalid_catalog_name: the database was dropped
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
