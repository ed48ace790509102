import { ServiceUnavailableError } from '../errors.js';

/** 503: the events store cannot be reached or will not take work now; the same request may be sent again. */
export class EventsStoreUnavailableError extends ServiceUnavailableError {
  constructor(cause: unknown) {
    super('The events store is unavailable; try again shortly.');
    this.cause = cause;
  }
}

/**
 * The error a ClickHouse call failed with, as the platform answers it: an outage (the server
 * cannot be reached, its connection broke, its Keeper is lost, it refuses work for now) is an
 * {@link EventsStoreUnavailableError}, a 503 to retry as for PostgreSQL's; anything else (a
 * statement's own error, a tenant's query past its limits) stays what it is.
 */
export function asUnavailable(error: unknown): unknown {
  return isClickHouseUnavailable(error) ? new EventsStoreUnavailableError(error) : error;
}

export function isClickHouseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, type } = error as Error & { code?: unknown; type?: unknown };
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (typeof type === 'string' && SERVER_TYPES.has(type)) return true;
  // The client's words for a request with no answer within its request_timeout, and Node's for a
  // connection closed before the answer.
  return error.message === 'Timeout error.' || error.message === 'socket hang up';
}

/** Node's codes for a server that cannot be reached or closed the connection. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET']);

/**
 * ClickHouse's error names for a server, a cluster or a replica that will not do the work now
 * (its `X-ClickHouse-Exception-Code`'s name), not for a wrong statement.
 */
const SERVER_TYPES = new Set([
  'ALL_CONNECTION_TRIES_FAILED', // a Distributed table's shard cannot be reached
  'ALL_REPLICAS_ARE_STALE',
  'NETWORK_ERROR',
  'SOCKET_TIMEOUT',
  'KEEPER_EXCEPTION', // Replicated tables without their Keeper
  'NO_ZOOKEEPER',
  'TABLE_IS_READ_ONLY', // a replica that lost its Keeper session
  'TOO_MANY_SIMULTANEOUS_QUERIES',
  'TOO_MANY_PARTS', // inserts faster than merges: the server throttles them
  'ABORTED',
]);

/**
 * The name of ClickHouse's error a call failed with (`TIMEOUT_EXCEEDED`, `TOO_MANY_ROWS_OR_BYTES`…),
 * null for any other failure. Read from the error's own fields rather than by its class: chDB's
 * connection loads the client's error class in CommonJS, and a test runner may load another copy.
 */
export function clickhouseErrorType(error: unknown): string | null {
  if (!(error instanceof Error) || error.constructor.name !== 'ClickHouseError') return null;
  const { type } = error as Error & { type?: unknown };
  return typeof type === 'string' ? type : null;
}
