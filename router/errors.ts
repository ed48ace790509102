import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import type { GraphQLFormattedError } from 'graphql';
import { contractError, retryAfterHeader } from '../subgraphs/shared/errors.js';

/**
 * A GraphQL error as clients get it: with the contract's `code`, `type`, `status` and `attr` in
 * its extensions, whoever raised it (a resolver, graphql-js's validation, argument coercion, the
 * gateway). An unexpected failure keeps only the generic message, never its cause.
 */
export function toContractError(error: unknown): GraphQLFormattedError {
  const candidate = error as { toJSON?: () => GraphQLFormattedError };
  const formatted = typeof candidate.toJSON === 'function' ? candidate.toJSON() : (error as GraphQLFormattedError);
  if (formatted.extensions?.type !== undefined) return formatted;
  const { status, body } = contractError(formatted as { message: string; extensions?: Record<string, unknown> });
  return {
    ...formatted,
    message: status >= 500 ? body.detail : formatted.message,
    extensions: { ...formatted.extensions, code: body.code, type: body.type, status, attr: body.attr },
  };
}

/**
 * Gives every error of an HTTP result the contract's extensions (graphql-ws results: see the
 * listener). A result without data answers the HTTP status of its first error, as REST does: a
 * refused or invalid operation is a 4xx, not the 500 a data-less result would get by default.
 */
export function useContractErrors(): GatewayPlugin {
  const statuses = new WeakMap<Request, { status: number; retryAfter: Record<string, string> }>();
  return {
    onResultProcess({ request, result, setResult }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
      const errors = result.errors.map(toContractError);
      const status = Number(errors[0]?.extensions?.status);
      if ((!('data' in result) || result.data == null) && status >= 400 && status < 500) statuses.set(request, { status, retryAfter: retryAfterHeader(errors[0]) });
      setResult({ ...result, errors: errors as never });
    },
    onResponse({ request, response, setResponse }) {
      const refused = statuses.get(request);
      if (refused === undefined || (response.status === refused.status && !refused.retryAfter['retry-after'])) return;
      const headers = new Headers(response.headers);
      for (const [name, value] of Object.entries(refused.retryAfter)) headers.set(name, value);
      setResponse(new Response(response.body, { status: refused.status, headers }));
    },
  };
}
