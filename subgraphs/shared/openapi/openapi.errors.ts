import type { ErrorType } from '../errors.js';

/** An OpenAPI object: documents are free-form JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- OpenAPI documents are free-form JSON
export type OpenApiObject = Record<string, any>;

const ERROR_TYPES = ['validation_error', 'authentication_error', 'invalid_request', 'throttled_error', 'server_error'] as const satisfies readonly ErrorType[];

/** The contract's error body, which every REST error answers (`contractError`). */
export const ERROR_SCHEMA: OpenApiObject = {
  type: 'object',
  description: "Every error: PostHog's flat error body.",
  required: ['type', 'code', 'detail', 'attr'],
  properties: {
    type: { type: 'string', enum: [...ERROR_TYPES] },
    code: { type: 'string', example: 'not_found' },
    detail: { type: 'string', example: 'Not found.' },
    attr: { type: 'string', nullable: true, description: 'The field at fault, for validation errors.' },
  },
};

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 413 | 429 | 502 | 503 | 504;

/** What each status means on any operation; an operation may say more. */
const MEANINGS: Record<ErrorStatus, string> = {
  400: 'Bad input: `attr` names the field.',
  401: 'No or unknown credentials.',
  403: 'Missing scope, or no access to the organization or project.',
  404: 'No such object where the caller has access.',
  405: 'The path does not take this method; `Allow` names those it does.',
  408: 'The body stopped arriving.',
  409: 'Conflicts with the current state.',
  413: 'The body is too large.',
  429: 'Throttled: too many requests with this key; `Retry-After` says when to try again.',
  502: 'An upstream service failed.',
  503: 'An upstream service is unavailable.',
  504: 'An upstream service did not answer in time.',
};

const RETRY_AFTER = { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } };

/**
 * The error responses of an operation, each with the contract's body (`#/components/schemas/Error`,
 * which `openApiDocument` adds); 429 also carries `Retry-After`. `said` words a status for this operation.
 */
export function errorResponses(statuses: readonly ErrorStatus[], said: Partial<Record<ErrorStatus, string>> = {}): OpenApiObject {
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: said[status] ?? MEANINGS[status],
        ...(status === 429 ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
}
