import { isUtf8 } from 'node:buffer';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Duplex } from 'node:stream';
import { getGraphQLWSOptions } from '@graphql-hive/gateway-runtime';
import type { Context, ServerOptions } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { FormattedExecutionResult } from 'graphql';
import type { Actor } from '../subgraphs/shared/auth/actor.js';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError, AuthenticationFailedError, ForbiddenError, NOT_UTF8, NotFoundError, ParseError, PayloadTooLargeError, ValidationError, RequestTimeoutError, ThrottledError } from '../subgraphs/shared/errors.js';
import { isBatchPath, methodsWithIngest, isGzip, logAborts, readBody, readRequest, RequestAbortedError, toGraphqlRequest, toRequest, UNCARRIED_METHODS, writeAppError, writeMethodNotAllowed, writeResponse, writeServerError, type ReadRequest } from '../subgraphs/shared/http.js';
import { isHealthPath, writeHealth, type HealthCheck } from '../subgraphs/shared/health.js';
import type { Logger } from '../subgraphs/shared/logger.js';
import { answerClientErrors } from '../subgraphs/shared/client-error.js';
import { Drain } from './drain.js';
import { bind } from '../subgraphs/shared/net.js';
import { InFlight } from '../subgraphs/shared/in-flight.js';
import { ingestQueue, recordRequest, watchSubscriptions } from '../subgraphs/shared/metrics.js';
import { ALLOWED, type Verdict } from '../subgraphs/shared/rate-limit.js';
import { Slots } from './slots.js';
import { logSocketErrors, ReasonedWebSocket } from '../subgraphs/shared/websocket.js';
import { credentialOf, narrowedAccess, type Authenticator, type Credential } from './auth.js';
import { contractErrorsOf, graphqlErrorResponse, toContractError } from './errors.js';
import type { RouterContext } from './gateway.context.js';
import { headerValue, type Gateway } from './gateway.js';
import { GRAPHIQL_ASSETS, graphiqlAsset } from './graphiql.page.js';
import { landingPage } from './landing.js';
import { isDirectAnswer, type DirectAnswer } from './post.fast-path.js';
import type { PortHold } from './listener.ports.js';
import { loggableUrl } from '../subgraphs/shared/auth/key-parameter.js';

/** A handler for one family of paths, in WHATWG terms. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** `/batch/`'s handler: its megabytes come as the bytes read, not as a WHATWG stream. */
export type IngestHandler = (request: ReadRequest) => Promise<Response>;

export interface ListenerOptions {
  host: string;
  port: number;
  /** Where the port was held during the start (starting.listener.ts): the listener takes it over instead of binding `port`. */
  held?: PortHold;
  gateway: Gateway;
  authenticator: Authenticator;
  /** The REST layer, for `/api/...`. */
  rest: FetchHandler;
  /** `/batch/` when ingestion is mounted. */
  ingest?: IngestHandler;
  /** Largest `/batch/` body (compressed; the handler bounds it inflated). */
  maxIngestBodyBytes?: number;
  health: HealthCheck;
  maxBodyBytes: number;
  /** For `/graphql` over HTTP and the REST routes `takesLargeBody` names, when the key is known. */
  maxLargeBodyBytes: number;
  /** Whether a REST request may have a large body. */
  takesLargeBody?: (method: string, url: string) => boolean;
  /** The methods a REST path takes (none: no such path), to refuse the ones fetch cannot carry. */
  allowedMethods?: (url: string) => string[];
  /** Whether a request with this Authorization may go on now (a personal API key's rate); none: no limit. */
  throttle?: (authorization: string | undefined) => Promise<Verdict>;
  /** In a cluster's worker: resolves once no worker takes connections on the port any more (see Drain.close). */
  listeningEnded?: () => Promise<void>;
  log: Logger;
}

export interface Listener {
  url: string;
  server: Server;
  /** Stops taking requests and lets those in progress finish, for at most `graceMs` (0: drop them). */
  close(graceMs?: number): Promise<void>;
}

/**
 * The public listener: `/graphql` (HTTP and graphql-ws), `/api/...`, `/batch/`, `/healthz` and the
 * landing page `/`, on one port. Request bodies are bounded here, once, for every path.
 */
export async function listen(options: ListenerOptions): Promise<Listener> {
  const { gateway, log } = options;
  // Websocket clients must not race the first schema load (the gateway loads it lazily).
  await gateway.runtime.fetch('http://router/graphql?query=%7B__typename%7D');

  const inFlight = new InFlight();
  const server = createServer((request, response) => {
    logAborts(log, request, response);
    if (drain.turnedAway(response)) return;
    inFlight.track(route(options, request, response)).catch((error: unknown) => {
      if (error instanceof RequestAbortedError) return;
      log.error({ err: error, url: loggableUrl(request.url) }, 'request failed');
      writeServerError(response);
    });
  });
  const drain = new Drain(server);
  answerClientErrors(server, (url) => methodsOf(options, url));
  // A graphql-ws message is a request body too, sent before the key is checked: the ordinary limit holds.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxBodyBytes, WebSocket: ReasonedWebSocket });
  /** The graphql-ws connections accepted, for the metrics' gauges. */
  const connections = new Set<WsContext>();
  const wsServer = useServer(graphqlWsOptions(options, connections), sockets);
  logSocketErrors(sockets, log);
  const unwatch = watchSubscriptions(() => ({
    connections: connections.size,
    subscriptions: [...connections].reduce((sum, ctx) => sum + Object.keys(ctx.subscriptions).length, 0),
  }));
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://router').pathname !== '/graphql') {
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(request, socket, head, (client) => sockets.emit('connection', client, request));
  });

  const url = options.held ? await options.held.takeOver(server) : await bind(server, options.host, options.port, 'PORT');
  return {
    url,
    server,
    close: async (graceMs = 0) => {
      const deadline = Date.now() + graceMs;
      unwatch();
      // graphql-ws closes its sockets with 1001 (going away): clients reconnect to another process.
      const open = [...sockets.clients];
      await wsServer.dispose();
      await Promise.race([Promise.all(open.map((client) => (client.readyState === client.CLOSED ? undefined : once(client, 'close')))), delay(Math.min(graceMs, 1000))]);
      for (const client of sockets.clients) client.terminate();
      await drain.close(Math.max(0, deadline - Date.now()), options.listeningEnded);
      // Requests whose clients went away: their work goes on, and the subgraphs must outlive it.
      await inFlight.settled(Math.max(0, deadline - Date.now()));
    },
  };
}

/** The key of a graphql-ws connection: its connection params, else its upgrade request's header. */
function connectionAuthorization(ctx: { connectionParams?: Record<string, unknown>; extra: { request: IncomingMessage } }): string | undefined {
  return headerValue(ctx.connectionParams, 'authorization') ?? ctx.extra.request.headers.authorization;
}

/** The connection's key, read and hashed at its first use; its header and params never change. */
function connectionCredential(ctx: WsContext): Credential {
  return (ctx.extra.credential ??= credentialOf(connectionAuthorization(ctx)));
}

type WsContext = Context<Record<string, unknown> | undefined, WsExtra>;

interface WsExtra {
  request: IncomingMessage;
  socket: WebSocket;
  /** The connection's caller as last checked: what its subscriptions were started with, or less. */
  actor?: Actor;
  /** Its key, read (and hashed) once: checked again at every event. */
  credential?: Credential;
}

/**
 * graphql-ws on the gateway. Each operation counts against its key's rate, as an HTTP request does.
 * Each event first re-checks the key (cached for a second): the sockets of a key that is no longer
 * valid close (4401), and so do those of a key that lost a scope or an organization since (4403),
 * since the subscriptions running on them were allowed under what it had; the client reconnects
 * and subscribes again as the key now is. A lookup that failed (a subgraph slow or down) proves
 * nothing about the key: the event goes. Errors carry the contract's codes.
 */
function graphqlWsOptions(options: ListenerOptions, connections: Set<WsContext>): ServerOptions<Record<string, unknown> | undefined, WsExtra> {
  const { authenticator, throttle } = options;
  const gatewayOptions = getGraphQLWSOptions<RouterContext, WsExtra>(options.gateway.runtime, (ctx) => ({ req: ctx.extra.request }));
  return {
    ...gatewayOptions,
    onConnect: (ctx) =>
      authenticator.actorOf(connectionCredential(ctx)).then(
        (actor) => {
          ctx.extra.actor = actor;
          connections.add(ctx);
          return true;
        },
        (error: unknown) => {
          // An unknown key is a 401; a lookup that failed (a subgraph down) is for the client to retry.
          if (error instanceof AppError && error.status === 401) closeWith(ctx, new AuthenticationFailedError());
          else ctx.extra.socket.close(1013, 'Try again later');
          return false;
        },
      ),
    onSubscribe: async (ctx, id, payload) => {
      const verdict = throttle ? await throttle(connectionAuthorization(ctx)) : ALLOWED;
      if (!verdict.allowed) return [new ThrottledError(verdict.retryAfterSeconds)];
      return gatewayOptions.onSubscribe!(ctx, id, payload);
    },
    onNext: async (ctx, _id, payload, _args, result) => {
      const current = await authenticator.actorOf(connectionCredential(ctx)).catch((error: unknown) => (error instanceof AppError && error.status === 401 ? null : undefined));
      if (current === null) return closeWith(ctx, new AuthenticationFailedError('The key of this connection is no longer valid.'));
      if (current && ctx.extra.actor && narrowedAccess(ctx.extra.actor, current)) {
        return closeWith(ctx, new ForbiddenError('The key of this connection lost scopes or access since it subscribed; subscribe again.'));
      }
      if (current) ctx.extra.actor = current;
      return result.errors ? { ...result, errors: contractErrorsOf(result, payload.query) } : undefined;
    },
    onError: (_ctx, _id, payload, errors) => contractErrorsOf({ errors }, payload.query),
    onClose: (ctx) => void connections.delete(ctx),
  };
}

/**
 * Closes a graphql-ws connection for a 401 (4401) or 403 (4403), ahead of graphql-ws's own 4403
 * for a refused connection; the result is the event that goes out instead of the data.
 */
function closeWith(ctx: WsContext, error: AppError): FormattedExecutionResult {
  ctx.extra.socket.close(error.status === 401 ? 4401 : 4403, error.status === 401 ? 'Unauthorized' : 'Forbidden');
  return { data: null, errors: [toContractError(error)] };
}

async function route(options: ListenerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://router').pathname;
  if (isHealthPath(path)) return writeHealth(response, path, options.health);
  if (path === '/' && (request.method === 'GET' || request.method === 'HEAD')) {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(landingPage());
    return;
  }
  // GraphiQL's files: static, so neither throttled nor read for a body.
  const asset = path.startsWith(GRAPHIQL_ASSETS) ? await graphiqlAsset(toRequest(request, Buffer.alloc(0))) : null;
  if (asset) return writeResponse(asset, response);
  const { ingest } = options;
  if (ingest && isBatchPath(path)) return answerIngest(request, response, ingest, options.maxIngestBodyBytes ?? options.maxBodyBytes);
  const handler = handlerFor(options, path);
  if (!handler) return writeAppError(response, new NotFoundError());
  if (UNCARRIED_METHODS.has(request.method ?? '')) return writeMethodNotAllowed(response, request.method!, methodsOf(options, request.url ?? '/'));
  const verdict = options.throttle ? await options.throttle(request.headers.authorization) : ALLOWED;
  if (!verdict.allowed) return writeRefusal(response, new ThrottledError(verdict.retryAfterSeconds), path === '/graphql');
  const refused = path === '/graphql' ? malformedGraphqlGet(request) : undefined;
  if (refused) return writeResponse(graphqlErrorResponse(refused), response);
  const graphql = path === '/graphql';
  const fast = graphql ? options.gateway.fastPost : undefined;
  const respond = async (body: Buffer) => {
    if (graphql && !isUtf8(body)) return graphqlErrorResponse(new ParseError(NOT_UTF8));
    return (await fast?.(request, body)) ?? handler(graphql ? toGraphqlRequest(request, body) : toRequest(request, body));
  };
  await answer(request, response, await bodyLimit(options, request, path), respond, { graphql });
}

/** The methods a path of this listener takes: for a 405's Allow. */
function methodsOf(options: ListenerOptions, url: string): string[] {
  if (new URL(url, 'http://router').pathname === '/graphql') return ['GET', 'POST'];
  const rest = (target: string) => options.allowedMethods?.(target) ?? [];
  return options.ingest ? methodsWithIngest(rest)(url) : rest(url);
}

/** GET /graphql's `variables` and `extensions` must be JSON objects (GraphQL over HTTP): a 400 otherwise, before the gateway. */
function malformedGraphqlGet(request: IncomingMessage): AppError | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  const params = new URL(request.url ?? '/', 'http://router').searchParams;
  for (const name of ['variables', 'extensions']) {
    const value = params.get(name);
    if (value === null) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return new ParseError(`The ${name} parameter is not valid JSON.`);
    }
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) return new ValidationError(`The ${name} parameter must be a JSON object.`, name);
  }
  return undefined;
}

/**
 * Reads a request's body up to `limit` (413 past it) and writes what `respond` answers for it.
 * With `idleMs`, a client silent that long in the middle of its body gets a 408 and its connection
 * closed. For `graphql`, those refusals are GraphQL errors.
 */
export async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  limit: number,
  respond: (body: Buffer) => Promise<Response | DirectAnswer>,
  options: { idleMs?: number; graphql?: boolean } = {},
): Promise<void> {
  let body: Buffer | null;
  try {
    body = await readBody(request, limit, options.idleMs);
  } catch (error) {
    if (!(error instanceof RequestTimeoutError)) throw error;
    response.shouldKeepAlive = false;
    return writeRefusal(response, error, options.graphql === true);
  }
  if (body === null) return writeRefusal(response, new PayloadTooLargeError(limit), options.graphql === true);
  const answered = await respond(body);
  if (!isDirectAnswer(answered)) return writeResponse(answered, response);
  response.writeHead(answered.status, { ...answered.headers, 'content-length': String(Buffer.byteLength(answered.payload)) }).end(answered.payload);
}

/** A refusal before any operation runs: the contract's body, or for GraphQL an error with its code in the extensions. */
function writeRefusal(response: ServerResponse, error: AppError, graphql: boolean): Promise<void> | void {
  if (!graphql) return writeAppError(response, error);
  return writeResponse(graphqlErrorResponse(error), response);
}

/**
 * Batches handled at once by this process, and the bytes they may weigh together: a batch takes
 * many times its JSON in memory while it is parsed, checked and written (as measured with 20 MiB
 * of small events), so two of the largest at once, or eight ordinary ones. Shared by every
 * listener that serves `/batch/`.
 */
const INGEST_SLOTS = new Slots(8, 40 * 1024 * 1024);
/** A client silent this long in the middle of its body gets a 408 (bodies are read before a turn is taken). */
const INGEST_BODY_IDLE_MS = 15_000;
/** What a compressed body is reckoned to inflate to before it is inflated (JSON gzips about so). */
const COMPRESSED_WEIGHT = 8;

/**
 * `/batch/`: the body is read first, with no turn held (a slow or silent client keeps no batch
 * waiting, and is dropped with a 408 once silent); then a turn, weighed by the body's size; then
 * the handler.
 */
export async function answerIngest(request: IncomingMessage, response: ServerResponse, ingest: IngestHandler, limit: number): Promise<void> {
  const startedAt = performance.now();
  response.once('finish', () => recordRequest('ingest', 'batch', response.statusCode, startedAt));
  await answer(
    request,
    response,
    limit,
    async (body) => {
      ingestQueue.inc();
      let release: () => void;
      try {
        release = await INGEST_SLOTS.acquire(isGzip(body) || request.headers['content-encoding'] !== undefined ? Math.min(limit, body.length * COMPRESSED_WEIGHT) : body.length);
      } finally {
        ingestQueue.dec();
      }
      try {
        return await ingest(readRequest(request, body));
      } finally {
        release();
      }
    },
    { idleMs: INGEST_BODY_IDLE_MS },
  );
}

/**
 * The REST paths that take whole traces, and GraphQL requests of a known key (any operation may
 * be text_repr), may carry megabytes; every other body is small, and is bounded so. The key is
 * checked before the body is read (the lookup is cached), so nobody unknown sends megabytes.
 */
async function bodyLimit(options: ListenerOptions, request: IncomingMessage, path: string): Promise<number> {
  const mayBeLarge = path === '/graphql' || (options.takesLargeBody?.(request.method ?? 'GET', request.url ?? '/') ?? false);
  const large = mayBeLarge && (await knownKey(options, request.headers.authorization));
  return large ? Math.max(options.maxLargeBodyBytes, options.maxBodyBytes) : options.maxBodyBytes;
}

function knownKey(options: ListenerOptions, authorization: string | undefined): Promise<boolean> {
  if (!authorization) return Promise.resolve(false);
  return options.authenticator.actorFor(authorization).then(
    (actor) => actor.kind === 'personal_api_key',
    () => false,
  );
}

function handlerFor(options: ListenerOptions, path: string): FetchHandler | undefined {
  if (path === '/graphql') return async (request) => options.gateway.runtime.fetch(request);
  if (path === '/api' || path.startsWith('/api/')) return options.rest;
  return undefined;
}
