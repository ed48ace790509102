import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { LegacyLogger, type GatewayRuntime } from '@graphql-hive/gateway-runtime';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionResult } from 'graphql';
import { createGraphQLError, processRegularResult } from 'graphql-yoga';
import { toGraphqlRequest, utf8Text } from '../subgraphs/shared/http.js';
import { recordRequest } from '../subgraphs/shared/metrics.js';
import { jsonProblem } from '../subgraphs/shared/validation.js';
import { changes, contractResult } from './errors.js';
import type { RouterContext } from './gateway.context.js';
import { executedOperation } from './metrics.plugin.js';

/** An answer the listener writes as it is. */
export interface DirectAnswer {
  status: number;
  headers: Record<string, string>;
  payload: string;
}

/** Whether an answer is a {@link DirectAnswer} (else a WHATWG Response). */
export function isDirectAnswer(answer: object): answer is DirectAnswer {
  return typeof (answer as Partial<DirectAnswer>).payload === 'string';
}

/** A plain GraphQL POST answered without the runtime's HTTP pipeline; undefined: leave it to Yoga, nothing done. */
export type FastPost = (request: IncomingMessage, body: Buffer) => Promise<DirectAnswer | undefined>;

/** What the runtime puts in every request's server context before Yoga runs (`useConfigInServerContext`). */
export type ConfigContext = Record<string, unknown> & { log: LegacyLoggerSource };
type LegacyLoggerSource = Parameters<typeof LegacyLogger.from>[0];

export interface Params {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** Yoga's own body limit (`useLimitRequestBodySize`), below the listener's largest. */
const YOGA_BODY_LIMIT = 25_000_000;
const JSON_TYPE = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;
const JSON_ANSWER = 'application/json; charset=utf-8';
/** `useRequestId`'s header, on answers and subgraph fetches. */
export const REQUEST_ID_HEADER = 'x-request-id';
const PARAM_NAMES = new Set(['query', 'variables', 'operationName']);

/** An operation's parameters, read, and what its server context is made of. */
export interface DirectCall {
  params: Params;
  headers: Record<string, string | string[] | undefined>;
  /** The request the authentication and the metrics read (a WHATWG Request of @whatwg-node's). */
  request: Request;
  /** Sent to remote subgraphs as `x-request-id`, as `useRequestId` sends Yoga's. */
  requestId?: string;
}

/** Runs an operation as Yoga would once its parameters are read; undefined: leave it to Yoga, nothing done. */
export type DirectOperation = (call: DirectCall) => Promise<{ result: ExecutionResult; document: DocumentNode } | undefined>;

/**
 * The operation without the runtime's HTTP pipeline: envelop's parse, validate, context and execute
 * (with every plugin's hooks on them), in the server context the runtime's request hooks would have
 * made. Anything Yoga refuses before the context (the variables' limits, a parse or validation
 * error, an unknown operation) and subscriptions are left to it: none of those steps writes
 * anything. The result is execution's, its errors as thrown (see {@link contractResult}).
 */
export function directOperation(gateway: GatewayRuntime<RouterContext>, configContext: () => ConfigContext | undefined): DirectOperation {
  // `useRequestId` gives each request a child of the runtime's logger and its legacy form; the
  // router's logger is silent and its own child (gateway.ts), so one serves every request.
  let logger: LegacyLogger | undefined;
  return async ({ params, headers, request, requestId }) => {
    const config = configContext();
    if (!config || (params.variables && jsonProblem(params.variables))) return undefined;
    const context = {
      ...config,
      headers,
      logger: (logger ??= LegacyLogger.from(config.log)),
      waitUntil: gateway.waitUntil,
      request,
      params,
      requestId,
    };
    const enveloped = gateway.getEnveloped(context);
    const document = attempt(() => enveloped.parse(params.query) as DocumentNode);
    const operation = document && getOperationAST(document, params.operationName);
    if (!document || !operation || operation.operation === 'subscription') return undefined;
    if (attempt(() => enveloped.validate(enveloped.schema, document))?.length !== 0) return undefined;
    // A refused key fails here, as in Yoga (which makes the thrown error the result), before anything runs.
    const result = await Promise.resolve()
      .then(() => enveloped.contextFactory())
      .then((contextValue) => enveloped.execute({ schema: enveloped.schema, document, contextValue, variableValues: params.variables, operationName: params.operationName }) as Promise<ExecutionResult>)
      .catch(thrownAsResult);
    return { result, document };
  };
}

/**
 * Answers the GraphQL POSTs that Yoga would answer in a way known beforehand, calling envelop's
 * parse, validate, context and execute (with every plugin's hooks on them) directly: the runtime's
 * HTTP pipeline around an operation (a WHATWG Request and Response, a dozen plugins' request and
 * response hooks, its parameter and result processing) took a large share of a GraphQL request's CPU
 * under distinct queries (test/bench/RESULTS.md). It takes a POST of JSON to `/graphql`
 * with no query string, no `Origin` (CORS), no `Content-Encoding`, an `Accept` for which Yoga answers
 * `application/json`, and a body of `query`, `variables` and `operationName` only, of a query or
 * mutation; on those, every request hook of the runtime's does nothing but what is done here (the
 * server context, the `x-request-id` header, the metrics' timing), and the result is written as
 * Yoga's processor and `useContractErrors` write it. A request Yoga would refuse before its context
 * (unreadable parameters, the variables' limits, a parse or validation error) is left to Yoga,
 * which refuses it in its own words: none of those steps writes anything.
 */
export function postFastPath(gateway: GatewayRuntime<RouterContext>, run: DirectOperation): FastPost {
  return async (request, body) => {
    if (!plainRequest(request, body)) return undefined;
    const params = plainParams(body);
    if (!params) return undefined;
    const startedAt = performance.now();
    // `useRequestId`: the caller's id, else (none, or an empty one) a new one.
    const sent = request.headers[REQUEST_ID_HEADER];
    const requestId = typeof sent === 'string' && sent !== '' ? sent : randomUUID();
    const graphqlRequest = toGraphqlRequest(request, body);
    const ran = await run({ params, headers: request.headers, request: graphqlRequest, requestId });
    if (!ran) return undefined;
    const answer = await written(ran.result, params.query);
    answer.headers[REQUEST_ID_HEADER] = requestId;
    recordRequest('graphql', executedOperation(graphqlRequest), answer.status, startedAt);
    return answer;
  };

  /** As Yoga's regular result processor writes it, after `useContractErrors` (its `onResultProcess`, then its `onResponse`). */
  async function written(result: ExecutionResult, query: string): Promise<DirectAnswer> {
    if (!result.errors?.length && result.extensions === undefined && !('stringify' in result)) return { status: 200, headers: { 'content-type': JSON_ANSWER }, payload: JSON.stringify(result) };
    const { errors, refusal } = result.errors?.length ? contractResult(result, query) : { errors: result.errors, refusal: undefined };
    const response = processRegularResult({ ...result, errors } as ExecutionResult, gateway.fetchAPI, 'application/json');
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
    const status = refusal && changes(refusal, response.status) ? refusal.status : response.status;
    if (refusal && status === refusal.status) Object.assign(headers, refusal.retryAfter);
    return { status, headers, payload: await response.text() };
  }
}

/** Whether Yoga would read this request as JSON and answer it as `application/json`, with nothing to add for CORS. */
function plainRequest(request: IncomingMessage, body: Buffer): boolean {
  const { headers } = request;
  return (
    request.method === 'POST' &&
    request.url === '/graphql' &&
    JSON_TYPE.test(headers['content-type'] ?? '') &&
    headers.origin === undefined &&
    headers['content-encoding'] === undefined &&
    (headers.accept === undefined || headers.accept === '*/*' || headers.accept === 'application/json') &&
    body.length <= YOGA_BODY_LIMIT
  );
}

/** The body as GraphQL parameters Yoga takes as they are; undefined for anything it would refuse or read otherwise. */
function plainParams(body: Buffer): Params | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Text(body));
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed) || Object.keys(parsed).some((name) => !PARAM_NAMES.has(name))) return undefined;
  const { query, variables, operationName } = parsed;
  if (typeof query !== 'string') return undefined;
  if (variables != null && !isPlainObject(variables)) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  return parsed as unknown as Params;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function attempt<T>(step: () => T): T | undefined {
  try {
    return step();
  } catch {
    return undefined;
  }
}

/** A failure thrown out of execution, as Yoga's `handleError` makes it a result (errors unmasked here). */
function thrownAsResult(error: unknown): ExecutionResult {
  if (error instanceof GraphQLError) return { errors: [error] };
  if (error instanceof Error) return { errors: [createGraphQLError(error.message, { originalError: error })] };
  return { errors: [createGraphQLError(String(error), { extensions: { code: 'INTERNAL_SERVER_ERROR', unexpected: true } })] };
}
