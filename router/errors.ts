import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import type { GraphQLFormattedError } from 'graphql';
import { contractError, retryAfterHeader, ServiceUnavailableError, type AppError } from '../subgraphs/shared/errors.js';
import { argumentOf } from './error-argument.js';

/**
 * A GraphQL error as clients get it: with the contract's `code`, `type`, `status` and `attr` in
 * its extensions, whoever raised it (a resolver, graphql-js's validation, argument coercion, the
 * gateway). An unexpected failure keeps only the generic message, never its cause.
 */
export function toContractError(error: unknown, query?: string): GraphQLFormattedError {
  const candidate = error as { toJSON?: () => GraphQLFormattedError };
  const formatted = typeof candidate.toJSON === 'function' ? candidate.toJSON() : (error as GraphQLFormattedError);
  return withoutInternals(withContractFields(formatted, () => argumentOf(formatted, query)));
}

/**
 * The errors of a result as clients get them. In a result without data, an error that nobody gave
 * a code or a status and that has no path is the request's own (a syntax error, an operation name
 * the document lacks): Yoga marks those 400 over plain HTTP only, so over graphql-ws and event
 * streams they would otherwise read as a server failure.
 */
export function contractErrorsOf(result: { data?: unknown; errors?: readonly unknown[] }, query?: string): GraphQLFormattedError[] {
  const dataless = result.data == null;
  return (result.errors ?? []).map((error) => toContractError(dataless ? asRequestError(error) : error, query));
}

function asRequestError(error: unknown): unknown {
  const candidate = error as { toJSON?: () => GraphQLFormattedError };
  const formatted = typeof candidate.toJSON === 'function' ? candidate.toJSON() : (error as GraphQLFormattedError);
  const extensions = formatted.extensions ?? {};
  const coded = ['code', 'status', 'http', 'type', 'serviceName'].some((name) => name in extensions);
  return coded || formatted.path ? formatted : { ...formatted, extensions: { ...extensions, code: 'BAD_REQUEST' } };
}

/** @param argument the argument a refused value was given for, when graphql-js refused it (see `argumentOf`); asked only then. */
function withContractFields(formatted: GraphQLFormattedError, argument: () => string | null): GraphQLFormattedError {
  if (formatted.extensions?.type !== undefined) return formatted;
  if (typeof formatted.extensions?.serviceName === 'string') return unavailable(formatted, formatted.extensions.serviceName);
  const { status, body } = contractError(formatted as { message: string; extensions?: Record<string, unknown> });
  const attr = body.type === 'validation_error' ? (argument() ?? body.attr) : body.attr;
  return {
    ...formatted,
    message: status >= 500 ? body.detail : formatted.message,
    extensions: { ...formatted.extensions, code: body.code, type: body.type, status, attr },
  };
}

/**
 * What is for operators, not clients: the gateway's record of the subgraph call (its query and
 * variables), and Yoga's cause of an unreadable body, which quotes the whole body. (`http` stays:
 * Yoga takes the answer's status and headers from it.)
 */
function withoutInternals(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const internal = formatted.extensions && INTERNAL_EXTENSIONS.some((name) => name in formatted.extensions!);
  if (!internal) return formatted;
  const extensions = { ...formatted.extensions };
  for (const name of INTERNAL_EXTENSIONS) delete extensions[name];
  return { ...formatted, extensions };
}

const INTERNAL_EXTENSIONS = ['request', 'response', 'originalError'];

/**
 * A subgraph that did not answer (stopped, restarting, unreachable) without an error of its own:
 * a 503 naming it, so a client retries, and the fields of the other subgraphs keep their data.
 */
function unavailable(formatted: GraphQLFormattedError, service: string): GraphQLFormattedError {
  return {
    ...formatted,
    message: `The ${service} service is unavailable; try again shortly.`,
    extensions: { ...formatted.extensions, ...new ServiceUnavailableError('').extensions },
  };
}

/**
 * Gives every error of an HTTP result the contract's extensions (graphql-ws results: see the
 * listener). A result without data answers the HTTP status of its first error, as REST does: a
 * refused or invalid operation is a 4xx, not the 500 a data-less result would get by default.
 */
export function useContractErrors(): GatewayPlugin {
  const refusals = new WeakMap<Request, Refusal>();
  // The operation's text, where a refused value's argument is read (see `argumentOf`).
  const queries = new WeakMap<Request, string>();
  return {
    onParams({ request, params }) {
      // Over graphql-ws there is no Request (the listener reads the text itself).
      if (request && typeof params?.query === 'string') queries.set(request, params.query);
    },
    onResultProcess({ request, result, setResult }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
      const { errors, refusal } = contractResult(result, queries.get(request));
      if (refusal) refusals.set(request, refusal);
      setResult({ ...result, errors: errors as never });
    },
    onResponse({ request, response, setResponse }) {
      const refusal = refusals.get(request);
      if (refusal === undefined || !changes(refusal, response.status)) return;
      const headers = new Headers(response.headers);
      for (const [name, value] of Object.entries(refusal.retryAfter)) headers.set(name, value);
      setResponse(new Response(response.body, { status: refusal.status, headers }));
    },
  };
}

/** The status and headers a refused operation answers with, whatever Yoga made of its errors. */
export interface Refusal {
  status: number;
  retryAfter: Record<string, string>;
}

/**
 * The errors of a result with some, as clients get them, and its refusal: a result without data
 * and a 4xx first error answers that status; one where no field could be answered and a dependency
 * was away (a 503 error) answers 503, with Retry-After. A partial answer stays a 200.
 */
export function contractResult(result: { data?: unknown; errors?: readonly unknown[] }, query?: string): { errors: GraphQLFormattedError[]; refusal?: Refusal } {
  const errors = contractErrorsOf(result, query);
  const status = Number(errors[0]?.extensions?.status);
  const dataless = !('data' in result) || result.data == null;
  if (dataless && status >= 400 && status < 500) return { errors, refusal: { status, retryAfter: retryAfterHeader(errors[0]) } };
  const away = errors.find((error) => error.extensions?.status === 503);
  if (away && unanswered(result.data, errors)) return { errors, refusal: { status: 503, retryAfter: retryAfterHeader(away) } };
  return { errors };
}

/** Whether no root field has an answer: no data, or each root field null with an error of its own. */
function unanswered(data: unknown, errors: readonly GraphQLFormattedError[]): boolean {
  if (data == null) return true;
  const failed = new Set(errors.map((error) => error.path?.[0]));
  return Object.entries(data as Record<string, unknown>).every(([field, value]) => value === null && failed.has(field));
}

/** Whether a refusal changes an answer of this status. */
export function changes(refusal: Refusal, status: number): boolean {
  return status !== refusal.status || refusal.retryAfter['retry-after'] !== undefined;
}

/**
 * A refusal of a whole GraphQL request before any operation runs (throttled, unreadable, malformed
 * parameters): its status, Retry-After when throttled, the contract's code in the extensions.
 */
export function graphqlErrorResponse(error: AppError): Response {
  return new Response(JSON.stringify({ errors: [{ message: error.message, extensions: error.extensions }] }), {
    status: error.status,
    headers: { 'content-type': 'application/graphql-response+json; charset=utf-8', ...retryAfterHeader(error) },
  });
}
