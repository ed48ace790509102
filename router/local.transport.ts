import httpTransport from '@graphql-mesh/transport-http';
import type { ExecutionRequest, ExecutionResult, Executor } from '@graphql-tools/utils';
import { GraphQLError, print, type DocumentNode } from 'graphql';
import type { Actor } from '../subgraphs/shared/auth/actor.js';
import type { LocalExecute, LocalRequest } from '../subgraphs/shared/subgraph/serve.js';

type Transport = typeof httpTransport;

/** The caller of an operation, current (checked again when its signature grew old), or the error that refuses it. */
export type ActorOf = (context: unknown) => Promise<Actor | GraphQLError | undefined>;

/**
 * The router's transport to a subgraph: a call into it when it runs in this process (`local`),
 * HTTP otherwise; subscriptions always go over graphql-ws, as the subgraph serves them. A local
 * call skips the socket and the JSON of the request: a batch of events crosses the graph as the
 * object it is, where HTTP wrote it out (escaping every quote of megabytes) and read it back.
 */
export function localFirstTransport(local: Record<string, LocalExecute>, actorOf: ActorOf): Transport {
  return {
    getSubgraphExecutor(options) {
      const execute = local[options.subgraphName];
      if (!execute) return httpTransport.getSubgraphExecutor(options);
      let remote: ReturnType<Transport['getSubgraphExecutor']> | undefined;
      const executor = ((request: ExecutionRequest) => {
        if (request.operationType !== 'subscription') return runLocal(execute, request, actorOf);
        remote ??= httpTransport.getSubgraphExecutor(options);
        return Promise.resolve(remote).then((subscribe) => subscribe(request));
      }) as Executor;
      // The gateway disposes of its executors on stop: the socket of subscriptions goes with it.
      const dispose = async () => {
        const made = (await remote) as (Executor & Partial<AsyncDisposable>) | undefined;
        await made?.[Symbol.asyncDispose]?.();
      };
      return Object.assign(executor, { [Symbol.asyncDispose]: dispose });
    },
  };
}

async function runLocal(execute: LocalExecute, request: ExecutionRequest, actorOf: ActorOf): Promise<ExecutionResult> {
  const actor = await actorOf(request.context);
  if (actor === undefined) return { errors: [new GraphQLError('Missing, forged or expired actor header.', { extensions: { code: 'UNAUTHENTICATED' } })] };
  if (actor instanceof GraphQLError) return { errors: [actor] };
  // As HTTP would send it: Apollo refuses an `operationName` present but undefined.
  const body: LocalRequest = { query: printed(request.document) };
  if (request.variables) body.variables = asJson(request.variables) as Record<string, unknown>;
  if (request.operationName !== undefined) body.operationName = request.operationName;
  return execute(body, actor);
}

const documents = new WeakMap<DocumentNode, string>();

/** The gateway plans each operation once and reuses its documents: printed once each. */
function printed(document: DocumentNode): string {
  let text = documents.get(document);
  if (text === undefined) {
    text = print(document);
    documents.set(document, text);
  }
  return text;
}

/**
 * Variables as a subgraph would read them from JSON (absent where undefined, dates as their text,
 * NaN as null), without writing any string out: the subgraph sees what HTTP would have given it.
 */
function asJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'number' && !Number.isFinite(value) ? null : value;
  const own = value as { toJSON?: () => unknown };
  if (typeof own.toJSON === 'function') return asJson(own.toJSON());
  if (Array.isArray(value)) return value.map((item) => (item === undefined || typeof item === 'function' ? null : asJson(item)));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined && typeof item !== 'function') copy[key] = asJson(item);
  return copy;
}
