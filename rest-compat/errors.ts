import { contractError, retryAfterHeader, type ErrorBody } from '../subgraphs/shared/errors.js';
import type { Logger } from '../subgraphs/shared/logger.js';

export function errorResponse(status: number, body: ErrorBody, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { 'content-type': 'application/json', ...headers } });
}

/**
 * An error (thrown, or a GraphQL result's) answered with the contract's status and body, and its
 * Retry-After; a 5xx is logged with the errors it came of.
 */
export function contractResponse(error: { message: string; extensions?: Record<string, unknown> }, log: Logger, errors: readonly unknown[] = [error]): Response {
  const { status, body } = contractError(error);
  if (status >= 500) log.error({ errors }, 'REST operation failed');
  return errorResponse(status, body, retryAfterHeader(error));
}
