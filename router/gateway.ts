import { readFileSync } from 'node:fs';
import { createGatewayRuntime, Logger as HiveLogger, type GatewayPlugin, type GatewayRuntime } from '@graphql-hive/gateway-runtime';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import httpTransport from '@graphql-mesh/transport-http';
import wsTransport from '@graphql-mesh/transport-ws';
import { getOperationAST, GraphQLError, Kind, type DocumentNode } from 'graphql';
import { ACTOR_HEADER, type Actor, type ActorSigner } from '../subgraphs/shared/auth/actor.js';
import type { RouterContext } from './gateway.context.js';
import { requireScopes } from '../subgraphs/shared/auth/auth-checker.js';
import { rootFieldScopes } from './root-scopes.js';
import type { RequiredScope } from '../subgraphs/shared/auth/scopes.js';
import { AppError, retryAfterHeader, ServiceUnavailableError } from '../subgraphs/shared/errors.js';
import type { Logger } from '../subgraphs/shared/logger.js';
import type { LocalSubgraph } from '../subgraphs/shared/local-subgraph.ports.js';
import { perOperation } from '../subgraphs/shared/per-operation.js';
import { AUTH_CACHE_MS, type Authenticator } from './auth.js';
import { useContractErrors } from './errors.js';
import { renderGraphiQL } from './graphiql.page.js';
import { useQueryLimits, type QueryLimits } from './limits.js';
import { useEventsLost } from './events-lost.plugin.js';
import { useRequestMetrics } from './metrics.plugin.js';
import { localFirstTransport } from './local.transport.js';
import { directOperation, postFastPath, REQUEST_ID_HEADER, type ConfigContext, type DirectOperation, type FastPost } from './post.fast-path.js';
import { projectFile } from '../subgraphs/shared/project-files.js';

/** A signed header younger than this is reused; older ones (long subscriptions) are made anew. */
const RESIGN_AFTER_MS = 10_000;

/** The committed supergraph, with each subgraph's routing URL replaced where `urls` names one. */
export function loadSupergraph(urls: Record<string, string> = {}, file = projectFile('schema/supergraph.graphql')): string {
  return readFileSync(file, 'utf8').replace(
    /@join__graph\(name: "([^"]+)", url: "([^"]*)"\)/g,
    (whole, name: string) => (urls[name] ? `@join__graph(name: "${name}", url: "${urls[name]}")` : whole),
  );
}

export interface GatewayOptions {
  supergraph: string;
  authenticator: Authenticator;
  signer: ActorSigner;
  log: Logger;
  limits?: QueryLimits;
  /** Subgraphs running in this process, called directly instead of over HTTP. */
  local?: Record<string, LocalSubgraph>;
  /** Plugins of what the router is mounted with (the REST layer's), after the router's own. */
  plugins?: GatewayPlugin<RouterContext>[];
}

/** A gateway made by {@link createGateway}: the runtime and the two ways around its HTTP pipeline. */
export interface Gateway {
  runtime: GatewayRuntime<RouterContext>;
  /** Plain GraphQL POSTs answered without the runtime's pipeline (see post.fast-path.ts). */
  fastPost: FastPost;
  /** Operations run without the HTTP pipeline (the REST layer's, see platform.server.ts). */
  direct: DirectOperation;
}

/**
 * The Hive Gateway runtime over the supergraph, with the Rust query planner. Every operation is
 * authenticated once (HTTP header, or graphql-ws connection params) and the actor travels to the
 * subgraphs in a signed header: on HTTP fetches, and as a connection param of subscription sockets.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const router = routerPlugins(options);
  let configContext: ConfigContext | undefined;
  const gateway = createGatewayRuntime<RouterContext>({
    supergraph: options.supergraph,
    unifiedGraphHandler,
    transports: { http: options.local ? localFirstTransport(options.local, router.currentActor) : httpTransport, ws: wsTransport },
    // Batching merges an operation's parallel fetches to one subgraph into one request, which
    // saves round trips over HTTP. In process there is no round trip to save, and it costs a
    // DataLoader per operation and subgraph and a tick's wait before each call: a clear share of a
    // worker's CPU under the router bench's distinct queries (test/bench/RESULTS.md).
    __experimental__batchExecution: !options.local,
    transportEntries: SUBSCRIPTIONS_OVER_WS,
    plugins: (context) => {
      configContext = context as unknown as ConfigContext;
      return [...router.plugins, useRequestMetrics(), ...(options.plugins ?? [])];
    },
    graphqlEndpoint: '/graphql',
    graphiql: { title: 'Analytics platform — GraphQL explorer', defaultQuery: '{ me { email } organizations { id name } }' },
    renderGraphiQL,
    landingPage: false,
    maskedErrors: false,
    logging: new SilentLogger(),
  });
  const direct = directOperation(gateway, () => configContext);
  return { runtime: gateway, fastPost: postFastPath(gateway, direct), direct };
}

/**
 * The runtime's own logger, silent (the platform logs with pino) and its own child. The runtime
 * makes a child per request and per subgraph call, and each new logger reads LOG_LEVEL and DEBUG
 * from the environment: a worker's time under distinct queries, spent for nothing written.
 */
class SilentLogger extends HiveLogger {
  constructor() {
    super({ level: false });
  }

  override child(): this {
    return this;
  }
}

/** Subscriptions reach each subgraph over graphql-ws on its /graphql, the actor in the connection params. */
export const SUBSCRIPTIONS_OVER_WS = {
  '*.http': {
    options: {
      subscriptions: {
        kind: 'ws',
        location: '/graphql',
        options: { connectionParams: { [ACTOR_HEADER]: '{context.actorHeader}' } },
      },
    },
  },
} as const;

/**
 * What makes any Hive Gateway this platform's router (`npm start`'s runtime and the Hive Gateway
 * CLI alike): the key authenticated once per operation and signed into every subgraph call, the
 * query limits, and the contract's errors.
 */
export function routerPlugins(options: Pick<GatewayOptions, 'authenticator' | 'signer' | 'log' | 'limits'>): {
  plugins: GatewayPlugin<RouterContext>[];
  currentActor: (context: unknown) => Promise<Actor | GraphQLError | undefined>;
} {
  const { authenticator, log } = options;
  const sign = recentSignatures(options.signer);
  /**
   * The operation's actor, for a subgraph call. A subscription outlives the header's expiry: then
   * the key is checked again (a revoked one gets no more data, but this error) and signed anew.
   */
  const currentActor = async (context: unknown): Promise<Actor | GraphQLError | undefined> => {
    const ctx = context as Partial<RouterContext>;
    if (!ctx.actor) return undefined;
    if (Date.now() - ctx.actorSignedAt! >= RESIGN_AFTER_MS) {
      try {
        ctx.actor = await authenticator.actorFor(ctx.authorization);
      } catch (error) {
        return asHttpError(error, log);
      }
      const { header, signedAt } = sign(ctx.actor);
      ctx.actorHeader = header;
      ctx.actorSignedAt = signedAt;
    }
    return ctx.actor;
  };
  const authenticate: GatewayPlugin<RouterContext> = {
    onContextBuilding({ context, extendContext }) {
      const ctx = context as Partial<RouterContext> & OperationContext;
      if (ctx.actor) return;
      const authorization = authorizationOf(ctx);
      return authenticator.actorFor(authorization).then(
        (actor) => {
          const { header, signedAt } = sign(actor);
          extendContext({ authorization, actor, actorHeader: header, actorSignedAt: signedAt });
        },
        (error: unknown) => {
          throw asHttpError(error, log);
        },
      );
    },
    // Every subgraph fetch carries the actor, including the entity fetches that resolve fields of
    // subscription events (which header propagation does not reach).
    async onFetch({ context, options: fetchOptions, setOptions, endResponse }) {
      const actor = await currentActor(context);
      if (actor === undefined) return;
      if (actor instanceof GraphQLError) {
        endResponse(Response.json({ errors: [{ message: actor.message, extensions: actor.extensions }] }));
        return;
      }
      const ctx = context as Partial<RouterContext>;
      const headers: Record<string, string> = { ...(fetchOptions.headers as Record<string, string>), [ACTOR_HEADER]: ctx.actorHeader! };
      if (ctx.requestId !== undefined) headers[REQUEST_ID_HEADER] = ctx.requestId;
      setOptions({ ...fetchOptions, headers });
    },
  };
  return { plugins: [authenticate, useRootScopes(rootFieldScopes()), useQueryLimits(options.limits), useContractErrors(), useEventsLost()], currentActor };
}

/**
 * The scope of an operation of one root field (as every REST request is), checked before its
 * variables are read: a key without it gets the 403 (no key, the 401) whatever its body or variables
 * hold, as DRF checks permissions before it parses a request. An operation of several root fields
 * is left to the subgraphs, which refuse each field on its own and answer the others.
 */
function useRootScopes(scopes: ReadonlyMap<string, readonly RequiredScope[]>): GatewayPlugin<RouterContext> {
  const scopeOf = rootFieldScope(scopes);
  const refusal = (args: { document: DocumentNode; operationName?: string | null; contextValue: unknown }): AppError | undefined => {
    const actor = (args.contextValue as Partial<RouterContext>).actor;
    const required = actor && scopeOf(args.document, args.operationName ?? undefined);
    return actor && required ? scopeRefusal(actor, required) : undefined;
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
  };
}

/** The 401 or 403 of an actor without the scopes, or none. */
function scopeRefusal(actor: Actor, required: readonly RequiredScope[]): AppError | undefined {
  try {
    requireScopes(actor, required);
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

/**
 * A key's refusal for a root field (`Mutation.create_project`) as the router gives it before the
 * operation runs: the 401 of an unknown key, or the 403 (for no key, the 401) of a missing scope;
 * none where the field may run, or where the key could not be looked up. The REST layer asks it of
 * a request whose body it cannot use.
 */
export function rootFieldAuthorizer(authenticator: Authenticator): (authorization: string | null, field: string) => Promise<AppError | undefined> {
  const scopes = rootFieldScopes();
  return async (authorization, field) => {
    const [type, name] = field.split('.') as [string, string];
    let actor: Actor;
    try {
      actor = await authenticator.actorFor(authorization);
    } catch (error) {
      // A lookup that failed (a subgraph slow or down) proves nothing about the key: the body's 400 stands.
      return error instanceof AppError ? error : undefined;
    }
    const required = scopes.get(`${type.toLowerCase()}.${name}`);
    return required && scopeRefusal(actor, required);
  };
}

/**
 * The scope an operation's one root field needs (none for several, or for a field without one),
 * found once per document and operation name.
 */
function rootFieldScope(scopes: ReadonlyMap<string, readonly RequiredScope[]>): (document: DocumentNode, operationName: string | undefined) => readonly RequiredScope[] | undefined {
  return perOperation((document, operationName) => {
    const operation = getOperationAST(document, operationName);
    const fields = operation?.selectionSet.selections.filter((selection) => !(selection.kind === Kind.FIELD && selection.name.value === '__typename'));
    const only = fields?.length === 1 && fields[0]!.kind === Kind.FIELD ? fields[0]! : undefined;
    return only && scopes.get(`${operation!.operation}.${only.name.value}`);
  });
}

/**
 * Signs actors, reusing the signature of an actor object made in the last AUTH_CACHE_MS: the
 * authenticator hands out one object per key for that long, so the header says the same, and
 * signing (JSON, base64, HMAC) every operation would redo the same work. The header expires
 * ACTOR_TTL_SECONDS after it was made, whoever reuses it.
 */
export function recentSignatures(signer: ActorSigner, clock: () => number = Date.now): (actor: Actor) => { header: string; signedAt: number } {
  const signatures = new WeakMap<Actor, { header: string; signedAt: number }>();
  return (actor) => {
    const now = clock();
    const recent = signatures.get(actor);
    if (recent && now - recent.signedAt < AUTH_CACHE_MS) return recent;
    const fresh = { header: signer.sign(actor, now), signedAt: now };
    signatures.set(actor, fresh);
    return fresh;
  };
}

/** What the gateway's context holds of the operation's request. */
interface OperationContext {
  /** The request's headers; over graphql-ws, with the connection params merged over them. */
  headers?: Record<string, string>;
  request?: Request;
  connectionParams?: Record<string, unknown>;
}

/**
 * The operation's Authorization. Over HTTP it is read from the request itself: the gateway's
 * `headers` there is a proxy over the request's Headers, which lists them by reading each one (a
 * cost that shows under distinct queries).
 */
function authorizationOf(ctx: OperationContext): string | undefined {
  if (!ctx.connectionParams && ctx.request) return ctx.request.headers.get('authorization') ?? undefined;
  return headerValue(ctx.headers, 'authorization');
}

/**
 * A header, case-insensitively. On graphql-ws the gateway merges the connection params after the
 * upgrade request's headers; the last match wins, so params take precedence, as at connect time.
 */
export function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  let found: string | undefined;
  for (const [key, value] of Object.entries(headers ?? {})) if (key.toLowerCase() === name && typeof value === 'string') found = value;
  return found;
}

/** Authentication failures answer 401 over HTTP with the contract's code; anything else is a 503 to retry. */
function asHttpError(error: unknown, log: Logger): GraphQLError {
  if (error instanceof AppError) {
    return new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status: error.status } } });
  }
  log.error({ err: error }, 'authentication lookup failed');
  const unavailable = new ServiceUnavailableError('Authentication is unavailable; try again shortly.');
  return new GraphQLError(unavailable.message, { extensions: { ...unavailable.extensions, http: { status: 503, headers: retryAfterHeader(unavailable) } } });
}
