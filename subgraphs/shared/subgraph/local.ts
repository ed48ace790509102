import {
  execute,
  getOperationAST,
  GraphQLError,
  Kind,
  subscribe,
  validate,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Actor } from '../auth/actor.js';
import type { LocalSubgraph } from '../local-subgraph.ports.js';
import type { SubgraphContext } from './context.js';
import { perOperation } from '../per-operation.js';

export interface LocalSubgraphOptions {
  schema: GraphQLSchema;
  contextFor: (actor: Actor) => SubgraphContext;
  /** The subgraph's Apollo `formatError`, applied to each error as Apollo applies it. */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
}

/**
 * graphql-js over the subgraph's schema, doing what Apollo's pipeline does that a caller can see
 * (validation, the codes it gives errors, `formatError`), without what only HTTP needs: the query's
 * text hashed, parsed and looked up, the result written out as JSON and read back by the router.
 * The planner reuses its documents, so each is validated once.
 */
export function localSubgraph({ schema, contextFor, formatError }: LocalSubgraphOptions): LocalSubgraph {
  const validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  const invalidity = (document: DocumentNode) => {
    let errors = validated.get(document);
    if (!errors) {
      errors = validate(schema, document).map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED'));
      validated.set(document, errors);
    }
    return errors;
  };
  const compiledQueries = queryCompiler(schema);
  const format = (errors: readonly GraphQLError[]) => errors.map((error) => formatError(enriched(error), error));
  return {
    async execute({ document, variables, operationName }, actor) {
      const invalid = invalidity(document);
      if (invalid.length > 0) return { errors: format(invalid) };
      const contextValue = contextFor(actor);
      const compiled = compiledQueries(document, operationName);
      let result = compiled && (await compiled.query(undefined, contextValue, variables));
      // Variables it could not read: graphql-js says why, in the words (and with the nodes) Apollo gives.
      if (!result || !('data' in result)) result = await execute({ schema, document, variableValues: variables, operationName, contextValue });
      if (!result.errors) return result;
      return { ...result, errors: format(result.errors.map((error) => (badUserInput(error) ? withCode(error, 'BAD_USER_INPUT') : error))) };
    },
    async subscribe({ document, variables, operationName }, actor) {
      const invalid = invalidity(document);
      if (invalid.length > 0) return { errors: invalid };
      const subscribed = await subscribe({ schema, document, variableValues: variables, operationName, contextValue: contextFor(actor) });
      // A subscription refused at its start (no access, the database away) has its errors formatted
      // as a query's: JSON objects, as the router reads them from a socket.
      return Symbol.asyncIterator in subscribed || !subscribed.errors ? subscribed : { ...subscribed, errors: format(subscribed.errors) };
    },
  };
}

/**
 * Queries compiled once per document and operation (graphql-jit): the planner reuses its documents,
 * and a compiled query runs a page of records without graphql-js's per-field work (the arguments
 * object, path and info of each of a hundred records' fields, a fifth of a list request's worker
 * time and most of what it allocated). Mutations keep graphql-js: they are not read paths. A
 * document the compiler refuses runs on graphql-js as well.
 */
function queryCompiler(schema: GraphQLSchema): (document: DocumentNode, operationName: string | undefined) => CompiledQuery | undefined {
  return perOperation((document, operationName) => {
    if (getOperationAST(document, operationName)?.operation !== 'query') return undefined;
    const compiled = compileQuery(schema, document, operationName);
    return isCompiledQuery(compiled) ? compiled : undefined;
  });
}

/** An error with Apollo's `code`, keeping what it was. */
function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, path: error.path, originalError: error.originalError ?? error, extensions: { ...error.extensions, code } });
}

/** A variable the subgraph could not read into its type, as Apollo tells one (`BAD_USER_INPUT`). */
function badUserInput(error: GraphQLError): boolean {
  const node = error.nodes?.length === 1 ? error.nodes[0] : undefined;
  if (node?.kind !== Kind.VARIABLE_DEFINITION || error.extensions?.code != null) return false;
  const variable = `Variable "$${node.variable.name.value}" `;
  return ['has invalid value', 'got invalid value ', 'of required type ', 'of non-null type '].some((rest) => error.message.startsWith(variable + rest));
}

/**
 * An error as Apollo hands it to `formatError`: a `code` always, its `http` taken off. (A compiled
 * query's errors may have no extensions at all.)
 */
function enriched(error: GraphQLError): GraphQLFormattedError {
  const extensions: Record<string, unknown> = { ...error.extensions, code: error.extensions?.code ?? 'INTERNAL_SERVER_ERROR' };
  delete extensions.http;
  return { ...error.toJSON(), extensions };
}
