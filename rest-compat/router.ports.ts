import type { ExecutionResult } from 'graphql';

/**
 * What the REST layer needs of the router, and nothing of how it is reached: in process, or over
 * the network when the REST layer runs alone (executors.ts makes both).
 */

/** One GraphQL operation, as the REST caller sends it (its Authorization header). */
export interface RouterOperation {
  query: string;
  variables: Record<string, unknown>;
  authorization: string | null;
}

/** Runs one GraphQL operation through the router, as the REST caller. */
export type RouterExecutor = (operation: RouterOperation) => Promise<ExecutionResult>;

/** Runs one GraphQL subscription through the router; results come until it completes (or `return()`). */
export type RouterSubscriber = (operation: RouterOperation) => AsyncIterableIterator<ExecutionResult>;
