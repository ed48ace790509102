import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, HeaderMap, type HTTPGraphQLResponse } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { ACTOR_HEADER, type Actor, type ActorSigner } from '../auth/actor.js';
import type { SubgraphContext } from './context.js';
import { isDatabaseUnavailable } from '../db/database-unavailable.js';
import type { Orm } from '../db/orm.js';
import { AppError, contractError, PayloadTooLargeError, retryAfterHeader, SERVER_ERROR_BODY, ServiceUnavailableError } from '../errors.js';
import { logAborts, readBody, RequestAbortedError, utf8Text } from '../http.js';
import type { Logger } from '../logger.js';
import type { PubSub } from '../pubsub/pubsub.js';
import { buildSubgraphGraphQLSchema } from './build.js';
import type { SubgraphDefinition } from './define.js';
import { KEEP_ALIVE_MS } from '../net.js';
import { logSocketErrors, ReasonedWebSocket } from '../websocket.js';
import { InFlight } from '../in-flight.js';
import type { LocalSubgraph } from '../local-subgraph.ports.js';
import { localSubgraph } from './local.js';
import { isHealthPath, ownHealth, partUp, writeHealth, type Health } from '../health.js';

/** What a running subgraph needs: its definition, its database, the pub/sub and the actor signer. */
export interface SubgraphRuntime {
  definition: SubgraphDefinition;
  orm: Orm;
  pubsub: PubSub;
  signer: ActorSigner;
  log: Logger;
}

export interface ServedSubgraph {
  name: string;
  /** `http://host:port/graphql`; the same path answers graphql-ws. */
  url: string;
  /** The same subgraph for a router in this process. */
  local: LocalSubgraph;
  close(): Promise<void>;
}

/** Internal requests come from the router only; this bounds what a misbehaving peer can send. */
/** Above the public listener's largest limit (MAX_LARGE_BODY_BYTES), with room for the router's own wrapping. */
const MAX_INTERNAL_BODY = 64 * 1024 * 1024;
/** Above Node's 16 KiB: the signed actor lists every organization of its user (~60 bytes each). */
const MAX_INTERNAL_HEADERS = 256 * 1024;

/**
 * Serves one subgraph over HTTP (POST/GET `/graphql`) and graphql-ws (same path). Every request must
 * carry a valid actor header signed by the router; one that is missing, forged or stale is refused.
 */
export async function serveSubgraph(runtime: SubgraphRuntime, host: string, port: number): Promise<ServedSubgraph> {
  const { definition, log } = runtime;
  const inFlight = new InFlight();
  const schema = await buildSubgraphGraphQLSchema(definition);
  const formatError = (formatted: GraphQLFormattedError, error: unknown) => formatSubgraphError(formatted, error, log);
  const apollo = new ApolloServer<SubgraphContext>({
    schema,
    includeStacktraceInErrorResponses: false,
    // Only the router calls a subgraph, with a signed actor header: CSRF cannot reach it.
    csrfPrevention: false,
    // Neither tracing nor cache hints are used; the cache-control plugin alone runs on every field.
    plugins: [ApolloServerPluginInlineTraceDisabled(), ApolloServerPluginCacheControlDisabled()],
    formatError,
    // Outside NODE_ENV=test, Apollo would stop itself at the first SIGTERM, refusing the lookups and
    // calls of requests still in their grace; the subgraph is closed by its process's shutdown, last.
    stopOnTerminationSignals: false,
  });
  await apollo.start();

  // The actor header lists the caller's organizations, so it grows with them; only the router
  // (which signs it) talks to a subgraph, so a large limit costs nothing in exposure.
  const server = createServer({ maxHeaderSize: MAX_INTERNAL_HEADERS }, (request, response) => {
    logAborts(log, request, response);
    inFlight.track(handleHttp(apollo, runtime, request, response)).catch((error: unknown) => {
      if (error instanceof RequestAbortedError) return;
      const known = error instanceof PayloadTooLargeError ? error : isDatabaseUnavailable(error) ? new ServiceUnavailableError(DATABASE_UNAVAILABLE_DETAIL) : undefined;
      if (!(known instanceof PayloadTooLargeError)) log.error({ err: error }, 'subgraph request failed');
      const { status, body } = known ? contractError(known) : { status: 500, body: SERVER_ERROR_BODY };
      if (!response.headersSent) response.writeHead(status, { 'content-type': 'application/json', ...retryAfterHeader(known) });
      response.end(JSON.stringify({ errors: [{ message: body.detail, extensions: { ...known?.extensions, ...body, status } }] }));
    });
  });
  // The router keeps connections alive; closing them sooner than it expects makes it reuse a
  // socket just as it closes (ECONNRESET under load).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  const sockets = new WebSocketServer({ server, path: '/graphql', maxPayload: MAX_INTERNAL_BODY, WebSocket: ReasonedWebSocket });
  const wsServer = useServer<Record<string, unknown>, { actor?: Actor }>(
    {
      schema,
      onConnect: (ctx) => {
        const header = ctx.connectionParams?.[ACTOR_HEADER] ?? ctx.extra.request.headers[ACTOR_HEADER];
        const actor = runtime.signer.verify(typeof header === 'string' ? header : undefined);
        if (!actor) return false;
        ctx.extra.actor = actor;
        return true;
      },
      context: (ctx) => contextFor(runtime, ctx.extra.actor!),
      // Errors over graphql-ws are the ones HTTP would give (a refused start, the database away).
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: result.errors.map((error) => formatError(error instanceof GraphQLError ? error.toJSON() : error, error)) } : undefined),
    },
    sockets,
  );
  logSocketErrors(sockets, log);

  // Exclusive: in a cluster worker, the router beside it calls this process's subgraphs, not a shared port's.
  await new Promise<void>((resolve) => server.listen({ port, host, exclusive: true }, resolve));
  const address = server.address() as AddressInfo;
  const url = `http://${host}:${address.port}/graphql`;
  // The runtime's logger names the subgraph already.
  log.info({ url }, 'subgraph listening');
  // The router of this process calls the subgraph without HTTP, with the same errors.
  const local = localSubgraph({ schema, contextFor: (actor) => contextFor(runtime, actor), formatError });
  return {
    name: definition.name,
    url,
    local: { execute: (request, actor) => inFlight.track(local.execute(request, actor)), subscribe: local.subscribe },
    close: async () => {
      await inFlight.settled(IN_FLIGHT_BOUND_MS);
      await closeAll(server, sockets, wsServer, apollo);
    },
  };
}

/** A subgraph serves while its database answers and its events can flow (Redis, where configured). */
function subgraphHealth(runtime: SubgraphRuntime): Promise<Health> {
  return ownHealth({
    database: () => partUp(() => runtime.orm.em.getConnection().execute('select 1')),
    pubsub: async () => runtime.pubsub.healthy(),
  });
}

function contextFor(runtime: SubgraphRuntime, actor: Actor): SubgraphContext {
  return {
    actor,
    em: runtime.orm.em.fork(),
    log: runtime.log,
    pubsub: runtime.pubsub,
  };
}

async function handleHttp(
  apollo: ApolloServer<SubgraphContext>,
  runtime: SubgraphRuntime,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://subgraph');
  if (isHealthPath(url.pathname)) return writeHealth(response, url.pathname, () => subgraphHealth(runtime));
  if (url.pathname !== '/graphql') {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"message":"Not found."}]}');
    return;
  }
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const body = request.method === 'POST' ? await readJson(request) : undefined;
  const result = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: request.method ?? 'GET', headers, search: url.search, body },
    context: async () => {
      const actor = runtime.signer.verify(headers.get(ACTOR_HEADER));
      if (!actor) {
        throw new GraphQLError('Missing, forged or expired actor header.', {
          extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
        });
      }
      return contextFor(runtime, actor);
    },
  });
  await writeResponse(result, response);
}

async function writeResponse(result: HTTPGraphQLResponse, response: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of result.headers) headers[name] = value;
  response.writeHead(result.status ?? 200, headers);
  if (result.body.kind === 'complete') {
    response.end(result.body.string);
    return;
  }
  for await (const chunk of result.body.asyncIterator) response.write(chunk);
  response.end();
}

/** The JSON body of a request from the router (bounded: a misbehaving peer cannot exhaust memory). */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const body = await readBody(request, MAX_INTERNAL_BODY);
  if (body === null) throw new PayloadTooLargeError(MAX_INTERNAL_BODY);
  return JSON.parse(utf8Text(body) || 'null');
}

/**
 * Typed errors and GraphQL's own request errors pass as they are; a database that cannot be
 * reached is a 503 to retry; anything else is a defect, logged in full and answered with the
 * generic server error (no message, no stack).
 */
function formatSubgraphError(formatted: GraphQLFormattedError, error: unknown, log: Logger): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  // An upstream's outage answered 503 (the events store) is the operator's to see, with its cause.
  if (original instanceof ServiceUnavailableError && original.cause) log.error({ err: original.cause, path: formatted.path }, original.message);
  if (original instanceof AppError) return formatted;
  const code = formatted.extensions?.code;
  if (code !== undefined && code !== 'INTERNAL_SERVER_ERROR') return formatted;
  if (isDatabaseUnavailable(original)) {
    log.error({ err: original, path: formatted.path }, 'database unavailable');
    return { ...DATABASE_UNAVAILABLE, path: formatted.path, locations: formatted.locations };
  }
  log.error({ err: original, path: formatted.path }, 'unexpected error in resolver');
  return {
    message: SERVER_ERROR_BODY.detail,
    path: formatted.path,
    locations: formatted.locations,
    extensions: { code: 'error', type: 'server_error', status: 500, attr: null },
  };
}

const DATABASE_UNAVAILABLE_DETAIL = 'The database is unavailable; try again shortly.';
const DATABASE_UNAVAILABLE: GraphQLFormattedError = new ServiceUnavailableError(DATABASE_UNAVAILABLE_DETAIL).toJSON();

/** How long a closing subgraph waits for its operations in progress (the public listener's grace is over by then). */
const IN_FLIGHT_BOUND_MS = 5000;
async function closeAll(
  server: Server,
  sockets: WebSocketServer,
  wsServer: { dispose(): void | Promise<void> },
  apollo: ApolloServer<SubgraphContext>,
): Promise<void> {
  await wsServer.dispose();
  for (const client of sockets.clients) client.terminate();
  await new Promise<void>((resolve) => sockets.close(() => resolve()));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await apollo.stop();
}
