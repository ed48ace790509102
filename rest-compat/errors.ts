import type { ErrorBody } from '../subgraphs/shared/errors.js';

export function errorResponse(status: number, body: ErrorBody, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { 'content-type': 'application/json', ...headers } });
}
