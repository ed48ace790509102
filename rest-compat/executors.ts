import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { Request as FetchRequest } from '@whatwg-node/fetch';
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import { ServiceUnavailableError } from '../subgraphs/shared/errors.js';
import { pushIterator } from '../subgraphs/shared/pubsub/pubsub.js';
import type { RouterExecutor, RouterSubscriber } from './router.ports.js';

/**
 * A POST whose JSON body is already an object: `json()` answers it without a text round trip.
 * The in-process router reads operations with `json()`, so a REST call carrying megabytes (a trace
 * for text_repr) is not serialised and parsed again on the way. Its answer comes back the same
 * way: the router puts the result object in `answer` ({@link useInProcessAnswers}) instead of
 * writing it out as JSON for this process to read back.
 */
class ParsedJsonRequest extends FetchRequest {
  answer?: ExecutionResult;

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
 * The router's plugin that answers the REST layer of its own process with the result object (see
 * {@link ParsedJsonRequest}), less what the router keeps from clients (`http` and `unexpected` in
 * error extensions), as its JSON would have been. Given to `createGateway` by whoever mounts the
 * REST layer on the router, so it runs after the router's plugins that rewrite results.
 */
export function useInProcessAnswers(): GatewayPlugin {
  return {
    onResultProcess({ request, result, setResultProcessor }) {
      if (!(request instanceof ParsedJsonRequest) || Array.isArray(result) || Symbol.asyncIterator in result) return;
      request.answer = asAnswered(result as ExecutionResult);
      setResultProcessor(() => new Response(null, { status: 200 }), 'application/json');
    },
  };
}

/** A result whose errors the contract's plugin has made plain objects, as the router's JSON has it. */
function asAnswered(result: ExecutionResult): ExecutionResult {
  return result.errors ? { ...result, errors: result.errors.map(asWritten) as never } : result;
}

/** An error (the contract's plugin has made each a plain object) as the router's JSON writes it. */
function asWritten(error: GraphQLFormattedError): GraphQLFormattedError {
  if (!error.extensions) return error;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- taken out
  const { http, unexpected, ...extensions } = error.extensions;
  return { ...error, extensions };
}

/**
 * The router of this process run directly, without its HTTP pipeline (router/post.fast-path.ts),
 * given the request and the headers it was made with: the result with the contract's errors, or
 * undefined when the router leaves the operation to it.
 */
export type DirectRouterCall = (operation: { query: string; variables: Record<string, unknown> }, request: Request, headers: Record<string, string>) => Promise<ExecutionResult | undefined>;

/**
 * Executes through a router reached by a fetch function: the router's own `fetch` in process
 * (`inProcess`: the operation is handed over as an object, and run by `direct` when it takes it),
 * or the network's when the REST layer runs alone (sent as JSON).
 */
export function routerExecutor(fetchRouter: (request: Request) => Promise<Response>, graphqlUrl: string, inProcess?: { direct?: DirectRouterCall }): RouterExecutor {
  return async ({ query, variables, authorization }) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (authorization) headers.authorization = authorization;
    const operation = { query, variables };
    const request = inProcess
      ? new ParsedJsonRequest(graphqlUrl, headers, operation)
      : new Request(graphqlUrl, { method: 'POST', headers, body: JSON.stringify(operation) });
    const ran = inProcess?.direct && (await inProcess.direct(operation, request, headers));
    const result = ran ? asAnswered(ran) : await throughFetch(request);
    if (!result.errors && !result.data) {
      return { errors: [{ message: 'The router answered without data.', extensions: { status: 502, type: 'server_error', code: 'bad_gateway' } }] } as never;
    }
    return result;
  };

  async function throughFetch(request: Request): Promise<ExecutionResult> {
    const response = await fetchRouter(request).catch((error: unknown) => {
      if (request instanceof ParsedJsonRequest) throw error;
      return undefined;
    });
    if (!response) return { errors: [routerUnavailable()] } as never;
    return (request instanceof ParsedJsonRequest && request.answer) || ((await response.json()) as ExecutionResult);
  }
}

/** A router over the network that cannot be reached (stopped, restarting): the caller may retry, as for any dependency away. */
export function routerUnavailable(): GraphQLFormattedError {
  return new ServiceUnavailableError('The router is unavailable; try again shortly.').toJSON();
}

/**
 * Subscribes through a router reached by a fetch function (its own `fetch` in process, the
 * network's when the REST layer runs alone), over GraphQL over SSE: the router answers a POST that
 * accepts `text/event-stream` with one `next` event per result and `complete` at the end. A
 * refusal before the stream (a bad key) comes as one JSON result.
 */
export function routerSubscriber(fetchRouter: (request: Request) => Promise<Response>, graphqlUrl: string): RouterSubscriber {
  return ({ query, variables, authorization }) => {
    const aborted = new AbortController();
    const { iterator, push, end } = pushIterator<ExecutionResult>(() => aborted.abort());
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
    if (authorization) headers.authorization = authorization;
    void (async () => {
      const response = await fetchRouter(new Request(graphqlUrl, { method: 'POST', headers, body: JSON.stringify({ query, variables }), signal: aborted.signal })).catch((error: unknown) => {
        if (aborted.signal.aborted) throw error;
        push({ errors: [routerUnavailable()] } as never);
        return undefined;
      });
      if (!response) return;
      if (!response.headers.get('content-type')?.includes('text/event-stream') || !response.body) {
        push((await response.json()) as ExecutionResult);
        return;
      }
      for await (const frame of sseFrames(response.body, aborted.signal)) {
        if (frame.event === 'complete') return;
        if (frame.data) push(JSON.parse(frame.data) as ExecutionResult);
      }
    })()
      .catch((error: unknown) => {
        if (!aborted.signal.aborted) push({ errors: [{ message: `The router's stream failed: ${(error as Error).message}`, extensions: { status: 502, type: 'server_error', code: 'bad_gateway' } }] } as never);
      })
      .finally(end);
    return iterator;
  };
}

/** The frames of a text/event-stream body (`event:` and `data:` lines; comments skipped); stops when `signal` aborts. */
async function* sseFrames(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const field = (name: string) => lines.filter((line) => line.startsWith(`${name}:`)).map((line) => line.slice(name.length + 1).replace(/^ /, ''));
        yield { event: field('event')[0] ?? 'message', data: field('data').join('\n') };
      }
    }
  } finally {
    reader.releaseLock();
  }
}
