import type { ExecutionResult } from 'graphql';
import type { RouterExecutor } from './rest.js';

/**
 * A POST whose JSON body is already an object: `json()` answers it without a text round trip.
 * The in-process router reads operations with `json()`, so a REST call carrying megabytes (a trace
 * for text_repr) is not serialised and parsed again on the way.
 */
class ParsedJsonRequest extends Request {
  constructor(
    url: string,
    headers: Record<string, string>,
    private readonly parsed: unknown,
  ) {
    super(url, { method: 'POST', headers });
  }

  override json(): Promise<unknown> {
    return Promise.resolve(this.parsed);
  }

  override text(): Promise<string> {
    return Promise.resolve(JSON.stringify(this.parsed));
  }
}

/**
 * Executes through a router reached by a fetch function: the router's own `fetch` in process
 * (`inProcess`: the operation is handed over as an object), or the network's when the REST layer
 * runs alone (sent as JSON).
 */
export function routerExecutor(fetchRouter: (request: Request) => Promise<Response>, graphqlUrl: string, inProcess = false): RouterExecutor {
  return async ({ query, variables, authorization }) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (authorization) headers.authorization = authorization;
    const operation = { query, variables };
    const request = inProcess
      ? new ParsedJsonRequest(graphqlUrl, headers, operation)
      : new Request(graphqlUrl, { method: 'POST', headers, body: JSON.stringify(operation) });
    const response = await fetchRouter(request);
    const result = (await response.json()) as ExecutionResult;
    if (!result.errors && !result.data) {
      return { errors: [{ message: 'The router answered without data.', extensions: { status: 502, type: 'server_error', code: 'bad_gateway' } }] } as never;
    }
    return result;
  };
}
