import httpTransport from '@graphql-mesh/transport-http';
import type { ExecutionRequest, ExecutionResult, Executor } from '@graphql-tools/utils';
import { GraphQLError, type DocumentNode, type FormattedExecutionResult } from 'graphql';
import type { Actor } from '../subgraphs/shared/auth/actor.js';
import type { LocalRequest, LocalSubgraph } from '../subgraphs/shared/local-subgraph.ports.js';

type Transport = typeof httpTransport;

/** The caller of an operation, current (checked again when its signature grew old), or the error that refuses it. */
export type ActorOf = (context: unknown) => Promise<Actor | GraphQLError | undefined>;

/** Queries whose variables pass this many characters are not shared: the key would cost what sharing saves. */
const SHARED_VARIABLES_MAX_CHARS = 64 * 1024;

/**
 * The router's transport to a subgraph: a call into it when it runs in this process (`local`),
 * HTTP and graphql-ws otherwise. A local call skips the socket and the JSON of the request (a
 * batch of events crosses the graph as the object it is, where HTTP wrote it out, escaping every
 * quote of megabytes, and read it back) and, for subscriptions, of every event.
 */
export function localFirstTransport(local: Record<string, LocalSubgraph>, actorOf: ActorOf): Transport {
  return {
    getSubgraphExecutor(options) {
      const subgraph = local[options.subgraphName];
      if (!subgraph) return httpTransport.getSubgraphExecutor(options);
      const run = localRunner(subgraph.execute, actorOf);
      const follow = localSubscriber(subgraph.subscribe, actorOf);
      const executor = ((request: ExecutionRequest) => (request.operationType === 'subscription' ? follow(request) : run(request))) as Executor;
      // Nothing to release: subscriptions end with their iterators.
      return Object.assign(executor, { [Symbol.asyncDispose]: async () => undefined });
    },
  };
}

/**
 * An operation for a local subgraph, with its caller (current, or the error that refuses the call)
 * and its variables as JSON would carry them (with how many characters their strings hold).
 */
async function localCall(request: ExecutionRequest, actorOf: ActorOf): Promise<{ actor: Actor; operation: LocalRequest; variableChars: number } | ExecutionResult> {
  const actor = await actorOf(request.context);
  if (actor === undefined) return { errors: [new GraphQLError('Missing, forged or expired actor header.', { extensions: { code: 'UNAUTHENTICATED' } })] };
  if (actor instanceof GraphQLError) return { errors: [actor] };
  const operation: LocalRequest = { document: request.document, operationName: request.operationName };
  const size = { chars: 0 };
  if (request.variables) operation.variables = asJson(request.variables, size) as Record<string, unknown>;
  return { actor, operation, variableChars: size.chars };
}

/** Starts subscriptions on one local subgraph, as its caller (checked as for any call). */
function localSubscriber(subscribe: LocalSubgraph['subscribe'], actorOf: ActorOf): (request: ExecutionRequest) => Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult | FormattedExecutionResult> {
  return async (request) => {
    const call = await localCall(request, actorOf);
    return 'actor' in call ? subscribe(call.operation, call.actor) : call;
  };
}

/** One execution shared by the callers that asked the same while it ran. */
interface Shared {
  answer: Promise<FormattedExecutionResult>;
  callers: number;
  /** The answer's JSON, written once when several callers each read their own copy. */
  text?: string;
}

/**
 * Runs queries and mutations on one local subgraph. The same query of the same caller (same signed
 * actor, document and variables) asked again while the first is running shares its execution, as
 * the HTTP executor shares one fetch for requests alike: many clients polling one view cost one.
 * A caller alone gets the result object itself; callers that shared one each get their own copy,
 * since the gateway writes into what it is given.
 */
function localRunner(execute: LocalSubgraph['execute'], actorOf: ActorOf): (request: ExecutionRequest) => Promise<ExecutionResult> {
  // By the document itself: the gateway plans each operation once and hands over the same
  // document for it, so the key need not hold its text (a long string, hashed for every call).
  const inflight = new WeakMap<DocumentNode, Map<string, Shared>>();
  return async (request) => {
    const call = await localCall(request, actorOf);
    if (!('actor' in call)) return call;
    const { actor, operation, variableChars } = call;
    const signed = (request.context as { actorHeader?: string } | undefined)?.actorHeader;
    if (request.operationType !== 'query' || !signed || variableChars > SHARED_VARIABLES_MAX_CHARS) return (await execute(operation, actor)) as ExecutionResult;
    let running = inflight.get(request.document);
    if (!running) inflight.set(request.document, (running = new Map()));
    const key = `${signed}\n${operation.operationName ?? ''}\n${JSON.stringify(operation.variables ?? null)}`;
    let shared = running.get(key);
    if (!shared) {
      const calls = running;
      shared = { answer: execute(operation, actor).finally(() => calls.delete(key)), callers: 0 };
      running.set(key, shared);
    }
    shared.callers += 1;
    const result = await shared.answer;
    if (shared.callers === 1) return result as ExecutionResult;
    shared.text ??= JSON.stringify(result);
    return JSON.parse(shared.text) as ExecutionResult;
  };
}

/**
 * Variables as a subgraph would read them from JSON (absent where undefined, dates as their text,
 * NaN as null), without writing any string out: the subgraph sees what HTTP would have given it.
 * Counts the characters of the strings met on the way.
 */
function asJson(value: unknown, size: { chars: number }): unknown {
  if (typeof value === 'string') size.chars += value.length;
  if (value === null || typeof value !== 'object') return typeof value === 'number' && !Number.isFinite(value) ? null : value;
  const own = value as { toJSON?: () => unknown };
  if (typeof own.toJSON === 'function') return asJson(own.toJSON(), size);
  if (Array.isArray(value)) return value.map((item) => (item === undefined || typeof item === 'function' ? null : asJson(item, size)));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined && typeof item !== 'function') setOwn(copy, key, asJson(item, size));
  return copy;
}

/**
 * `copy[key] = value`, except for a key named `__proto__` (JSON.parse makes it an own key): assigned,
 * it would call the prototype's setter, so that the key vanished, or an object sent under it became
 * the copy's prototype and its keys read as the copy's own. Defined, it stays a key like any other.
 */
function setOwn(copy: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  else copy[key] = value;
}
