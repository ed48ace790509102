import { GraphQLError } from 'graphql';

/** The error families of the contract's REST error body (`type`). */
export type ErrorType =
  | 'validation_error'
  | 'authentication_error'
  | 'invalid_request'
  | 'throttled_error'
  | 'server_error';

export interface ErrorBody {
  type: ErrorType;
  code: string;
  detail: string;
  attr: string | null;
}

/**
 * An expected failure. It carries everything the contract's error body needs in `extensions`
 * (`code`, `type`, `attr`, `status`), so GraphQL clients and the REST layer see the same thing.
 * The status is not put in `extensions.http`: subgraphs answer 200 with GraphQL errors, so the
 * router passes them through unchanged, and the REST layer picks the HTTP status from `status`.
 */
export class AppError extends GraphQLError {
  constructor(readonly status: number, type: ErrorType, code: string, detail: string, attr: string | null = null) {
    super(detail, { extensions: { code, type, attr, status } });
  }
}

/** 400: bad input; `attr` names the field (nested fields joined with `__`, as PostHog does). */
export class ValidationError extends AppError {
  constructor(detail: string, attr: string | null = null, code = 'invalid_input') {
    super(400, 'validation_error', code, detail, attr);
  }
}

/** 400: a body that is not JSON. */
export class ParseError extends AppError {
  constructor(detail: string) {
    super(400, 'invalid_request', 'parse_error', detail);
  }
}

/** A body that is not UTF-8: refused whole, as PostHog does, rather than stored with U+FFFD in it. */
export const NOT_UTF8 = 'JSON parse error - the body is not valid UTF-8.';

/** 401: no credentials at all. */
export class NotAuthenticatedError extends AppError {
  constructor(detail = 'Authentication credentials were not provided.') {
    super(401, 'authentication_error', 'not_authenticated', detail);
  }
}

/** PostHog's words for a personal API key that matches nothing, found in the Authorization header. */
export const UNKNOWN_PERSONAL_KEY = 'Personal API key found in request Authorization header is invalid.';

/** 401: credentials that match nothing. */
export class AuthenticationFailedError extends AppError {
  constructor(detail = UNKNOWN_PERSONAL_KEY) {
    super(401, 'authentication_error', 'authentication_failed', detail);
  }
}

/** 403: authenticated, but not allowed (scope, membership level, foreign project). */
export class ForbiddenError extends AppError {
  constructor(detail = 'You do not have permission to perform this action.') {
    super(403, 'authentication_error', 'permission_denied', detail);
  }
}

/** 404: nothing there where the caller has access; another tenant's object is worded the same. */
export class NotFoundError extends AppError {
  constructor(detail = 'Not found.') {
    super(404, 'invalid_request', 'not_found', detail);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string) {
    super(405, 'invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`);
  }
}

export class ConflictError extends AppError {
  constructor(detail: string, code = 'conflict', attr: string | null = null) {
    super(409, 'invalid_request', code, detail, attr);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, 'invalid_request', 'request_too_large', `Request body is larger than ${limit} bytes.`);
  }
}

/** A client that stopped sending the body it announced: it holds nothing past this. */
export class RequestTimeoutError extends AppError {
  constructor(seconds: number) {
    super(408, 'invalid_request', 'request_timeout', `No part of the request body arrived for ${seconds} seconds.`);
  }
}

export class ThrottledError extends AppError {
  constructor(seconds: number) {
    super(429, 'throttled_error', 'throttled', `Request was throttled. Expected available in ${seconds} seconds.`);
    // What the REST answer's Retry-After header says.
    this.extensions.retry_after = seconds;
  }
}

/**
 * The `Retry-After` header of an error: its `retry_after` seconds (throttled, starting, stopping),
 * else {@link UNAVAILABLE_RETRY_SECONDS} for any 503, which only says "not now"; none otherwise.
 */
export function retryAfterHeader(error: { extensions?: Record<string, unknown> } | undefined): Record<string, string> {
  const seconds = error?.extensions?.retry_after;
  if (typeof seconds === 'number' && Number.isFinite(seconds)) return { 'retry-after': String(Math.ceil(seconds)) };
  return Number(error?.extensions?.status) === 503 ? { 'retry-after': String(UNAVAILABLE_RETRY_SECONDS) } : {};
}

/**
 * When a client is asked to come back after a dependency (the database, a subgraph) was found
 * away: soon enough for a restart or a failover, late enough that every client retrying at once
 * does not hold the dependency down as it comes back.
 */
export const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * 503: a dependency the request needs (the database, a subgraph, the key lookup) cannot be reached
 * now; the same request may be sent again after `Retry-After`.
 */
export class ServiceUnavailableError extends AppError {
  constructor(detail: string) {
    super(503, 'server_error', 'service_unavailable', detail);
    this.extensions.retry_after = UNAVAILABLE_RETRY_SECONDS;
  }
}

/** 503 while the platform starts (its `/healthz`), asked again after a second. */
export class StartingError extends AppError {
  constructor() {
    super(503, 'server_error', 'service_unavailable', 'The platform is starting; try again shortly.');
    this.extensions.retry_after = 1;
  }
}

/** 502/503/504: an upstream (language-model provider, SMTP) failed; the detail names which. */
export class UpstreamError extends AppError {
  constructor(status: 502 | 503 | 504, detail: string) {
    super(status, 'server_error', 'upstream_error', detail);
  }
}

/** What a subscription that may have missed events ends with: the client re-reads and subscribes again. */
export const EVENTS_LOST = 'events_lost';

/**
 * A subscription's last word when events of its topic may not have reached it (the pub/sub's
 * connection dropped, or a publish failed): its stream ends after this error, so that a gap is
 * never silent. 503 for the REST layer: the events are not gone for good, the current state is.
 */
export class EventsLostError extends AppError {
  constructor() {
    super(503, 'server_error', EVENTS_LOST, 'Events of this subscription may be missing: read the current state again and subscribe again.');
  }
}

const TYPE_BY_STATUS: Record<number, ErrorType> = {
  400: 'validation_error',
  401: 'authentication_error',
  403: 'authentication_error',
  429: 'throttled_error',
};

const CODE_BY_STATUS: Record<number, string> = {
  400: 'invalid_input',
  401: 'not_authenticated',
  403: 'permission_denied',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'request_too_large',
  429: 'throttled',
};

/** The body of every unexpected failure: nothing about its cause reaches the caller. */
export const SERVER_ERROR_BODY: ErrorBody = { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null };

/** Builds the contract's error body from a GraphQL error's `extensions` (ours, or a gateway's). */
export function errorBody(error: { message: string; extensions?: Record<string, unknown> }): { status: number; body: ErrorBody } {
  const ext = error.extensions ?? {};
  const status = Number(ext.status ?? (ext.http as { status?: number } | undefined)?.status ?? statusOfCode(String(ext.code ?? '')));
  const known = status >= 400 && status < 600 ? status : 500;
  if (known >= 500 && ext.type === undefined) {
    return { status: 500, body: SERVER_ERROR_BODY };
  }
  return {
    status: known,
    body: {
      type: (ext.type as ErrorType) ?? TYPE_BY_STATUS[known] ?? (known >= 500 ? 'server_error' : 'invalid_request'),
      code: typeof ext.code === 'string' && ext.code === ext.code.toLowerCase() ? ext.code : CODE_BY_STATUS[known] ?? 'error',
      detail: error.message,
      attr: typeof ext.attr === 'string' ? ext.attr : null,
    },
  };
}

/** Codes that graphql-js and the gateway use for request problems they find before any resolver runs. */
function statusOfCode(code: string): number {
  switch (code) {
    case 'GRAPHQL_PARSE_FAILED':
    case 'GRAPHQL_VALIDATION_FAILED':
    case 'BAD_USER_INPUT':
    case 'BAD_REQUEST':
      return 400;
    case 'UNAUTHENTICATED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    default:
      return 500;
  }
}

/**
 * The contract's error body for the first GraphQL error. Errors that graphql-js raises while
 * coercing arguments (before any resolver runs) are reworded the way PostHog words field errors,
 * with `attr` naming the field.
 */
export function contractError(error: { message: string; extensions?: Record<string, unknown> }): { status: number; body: ErrorBody } {
  return variableError(error.message) ?? argumentError(error) ?? errorBody(error);
}

/**
 * An argument written in the document itself that graphql-js's validation refused, in the code the
 * REST layer gives the same field: a missing one is `required` (and named); a value its type cannot
 * take is `invalid_choice` (an enum's) or `invalid_input`. graphql-js does not name the argument
 * then (the router names it from the document: `router/error-argument.ts`). Up to graphql 16.8 the
 * type's own words came after `Expected value of type "…", found …; `; since, alone, which only a
 * validation error's code tells from a result that failed to serialize (a defect, a 500).
 */
function argumentError(error: { message: string; extensions?: Record<string, unknown> }): { status: number; body: ErrorBody } | null {
  const missing = /^Field "\w+" argument "(\w+)" of type "[^"]+" is required, but it was not provided\.$/.exec(error.message);
  if (missing) return { status: 400, body: { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: missing[1]! } };
  const wrapped = /^Expected value of type "[^"]+", found /.test(error.message);
  if (!wrapped && error.extensions?.code !== 'GRAPHQL_VALIDATION_FAILED') return null;
  const problem = wrapped ? problemAfter(error.message) : valueProblem(error.message);
  return problem && { status: 400, body: { type: 'validation_error', ...problem, attr: null } };
}

function variableError(message: string): { status: number; body: ErrorBody } | null {
  const variable = /^Variable "\$(\w+)"/.exec(message)?.[1];
  if (!variable) return null;
  const body = (code: string, detail: string): { status: number; body: ErrorBody } => ({
    status: 400,
    body: { type: 'validation_error', code, detail, attr: variable },
  });
  if (/was not provided/.test(message)) return body('required', 'This field is required.');
  if (/must not be null/.test(message)) return body('null', 'This field may not be null.');
  const problem = problemAfter(message);
  if (problem) return body(problem.code, problem.detail);
  if (/Expected type "\[|expected iterable|List/.test(message)) return body('not_a_list', 'Expected a list of items.');
  return body('invalid_input', message);
}

/**
 * The problem graphql-js names after a `; ` (`Variable "$v" got invalid value "a" at "v.n"; Int
 * cannot represent …`): the first such tail that reads as one, as the value before may hold `; `.
 */
function problemAfter(message: string): { code: string; detail: string } | null {
  for (let at = message.indexOf('; '); at !== -1; at = message.indexOf('; ', at + 2)) {
    const problem = valueProblem(message.slice(at + 2));
    if (problem) return problem;
  }
  return null;
}

/** What graphql-js's words say is wrong with a value, in PostHog's words for the same field error. */
function valueProblem(words: string): { code: string; detail: string } | null {
  const unknown = /^Value "(.*)" does not exist in "\w+" enum/s.exec(words);
  if (unknown) return { code: 'invalid_choice', detail: `"${unknown[1]}" is not a valid choice.` };
  const notEnum = /^Enum "\w+" cannot represent non-enum value: "?(.*?)"?\.(?: Did you mean .*)?$/s.exec(words);
  if (notEnum) return { code: 'invalid_choice', detail: `"${notEnum[1]}" is not a valid choice.` };
  const notString = /^Enum "\w+" cannot represent non-string value: (.*?)\.(?: Did you mean .*)?$/s.exec(words);
  if (notString) return { code: 'invalid_choice', detail: `"${notString[1]!.replaceAll('"', "'")}" is not a valid choice.` };
  if (/^Int cannot represent/.test(words)) return { code: 'invalid_input', detail: 'A valid integer is required.' };
  if (/^Float cannot represent/.test(words)) return { code: 'invalid_input', detail: 'A valid number is required.' };
  if (/^Boolean cannot represent/.test(words)) return { code: 'invalid_input', detail: 'Must be a valid boolean.' };
  if (/^String cannot represent/.test(words)) return { code: 'invalid_input', detail: 'Not a valid string.' };
  return null;
}

