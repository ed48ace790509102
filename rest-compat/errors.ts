import { contractError, retryAfterHeader, type ErrorBody } from '../subgraphs/shared/errors.js';

export function errorResponse(status: number, body: ErrorBody, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** An error (thrown, or a GraphQL result's) answered with the contract's status and body, and its Retry-After. */
export function contractResponse(error: { message: string; extensions?: Record<string, unknown> }): Response {
  const { status, body } = contractError(error);
  return errorResponse(status, body, retryAfterHeader(error));
}
