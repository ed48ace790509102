import type { ExecutionResult } from 'graphql';
import type { RouterExecutor } from './rest.js';

/**
 * Executes through a router reached by a fetch function: the router's own `fetch` in process, or
 * the network's when the REST layer runs alone.
 */
export function routerExecutor(fetchRouter: (request: Request) => Promise<Response>, graphqlUrl: string): RouterExecutor {
  return async ({ query, variables, authorization }) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (authorization) headers.authorization = authorization;
    const response = await fetchRouter(new Request(graphqlUrl, { method: 'POST', headers, body: JSON.stringify({ query, variables }) }));
    const result = (await response.json()) as ExecutionResult;
    if (!result.errors && !result.data) {
      return { errors: [{ message: 'The router answered without data.', extensions: { status: 502, type: 'server_error', code: 'bad_gateway' } }] } as never;
    }
    return result;
  };
}
