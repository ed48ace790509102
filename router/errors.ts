import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import type { GraphQLFormattedError } from 'graphql';
import { contractError } from '../subgraphs/shared/errors.js';

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

/** Gives every error of an HTTP result the contract's extensions (graphql-ws results: see the listener). */
export function useContractErrors(): GatewayPlugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
      setResult({ ...result, errors: result.errors.map(toContractError) as never });
    },
  };
}
