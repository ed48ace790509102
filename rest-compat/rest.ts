import { filterSchema } from '@graphql-tools/utils';
import { Request as FetchRequest } from '@whatwg-node/fetch';
import { buildSchema, print, type DocumentNode, type ExecutionResult } from 'graphql';
import { createSofaRouter, createSofa } from 'sofa-api';
import {
  contractError,
  MethodNotAllowedError,
  NotFoundError,
  NOT_UTF8,
  ParseError,
  SERVER_ERROR_BODY,
  ThrottledError,
  ValidationError,
  type AppError,
} from '../subgraphs/shared/errors.js';
import { DEFAULT_MAX_INGEST_BODY_BYTES } from '../subgraphs/shared/config.js';
import { ReadBodyRequest, strictUtf8Text, type ReadRequest } from '../subgraphs/shared/http.js';
import type { Logger } from '../subgraphs/shared/logger.js';
import { recordRequest } from '../subgraphs/shared/metrics.js';
import type { Verdict } from '../subgraphs/shared/rate-limit.js';
import { exceedsDepth, MAX_JSON_DEPTH } from '../subgraphs/shared/validation.js';
import { KEY_PARAMETER } from '../subgraphs/shared/auth/key-parameter.js';
import { typedBody, typedQuery } from './body-types.js';
import { namingKeySource, restCredential, type KeySource } from './personal-key.js';
import { serveDocs } from './docs.js';
import { bindCurrent } from './current-placement.js';
import { contractResponse, errorResponse } from './errors.js';
import { withBodyFields } from './body-fields.js';
import type { RouterExecutor, RouterSubscriber } from './router.ports.js';
import { createIngest, INGEST_FIELD } from './ingest/ingest.handler.js';
import { restOpenApi } from './openapi/openapi.document.js';
import { scalarSchemas } from './openapi/openapi.scalars.js';
import { pathParameterNames, RouteMatcher, type HttpMethod, type Match, type RestRoute } from './route-table.js';
import { hiddenFields as allHiddenFields, routes as allRoutes } from './routes/index.js';

export interface RestOptions {
  /** The public schema (`schema/api.graphql`). */
  apiSdl: string;
  execute: RouterExecutor;
  /** Subscriptions through the router (streamed conversations). */
  subscribe: RouterSubscriber;
  log: Logger;
  routes?: RestRoute[];
  /** `Type.field`s left out of REST records (default: every area's `hiddenFields`). */
  hiddenFields?: string[];
  /** Largest `/batch/` body once inflated (default 20 MiB). */
  maxIngestBodyBytes?: number;
  /**
   * The personal-key rate limit, for a key carried in the body or the query string: the listener
   * throttles by the Authorization header before the body is read, so it never sees those.
   */
  throttle?: (authorization: string | undefined) => Promise<Verdict>;
  /**
   * A key's 401 or 403 for a root field (`Mutation.create_project`), or none: the router's verdict
   * before an operation runs. Asked only of a request whose body cannot be used, so that its key is
   * refused first, as DRF authenticates and checks permissions before it parses a body. Without it
   * (the REST layer in a process of its own) such a body is a 400 whoever sends it.
   */
  authorize?: (authorization: string | null, field: string) => Promise<AppError | undefined>;
}

export interface RestLayer {
  /** Answers a request under `/api`; the body is already bounded by the listener. */
  handle(request: Request): Promise<Response>;
  /** Answers `/batch/` (the ingest endpoint), given the body the listener read (and bounded). */
  ingest(request: ReadRequest): Promise<Response>;
  /** Whether a request's route takes large bodies (`largeBody`), so the listener bounds it higher. */
  takesLargeBody(method: string, url: string): boolean;
  /** The methods a path takes (none: no such path), for those that fetch cannot carry (TRACE). */
  allowedMethods(url: string): string[];
  openapi: Record<string, unknown>;
}

const API_PREFIX = '/api';
/** What an operation runs with: SOFA hands the server's context (ours) to `execute` as it is. */
interface RestContext {
  authorization: string | null;
  /** The caller's URL, for absolute page links. */
  publicUrl: URL;
  /** The request's typed JSON body, which SOFA is not handed. */
  bodyFields?: Record<string, unknown>;
}

/**
 * The REST projection: SOFA over the public schema, restricted to the documented routes, and
 * executing every operation through the router. Around SOFA: route matching with and without the
 * trailing slash (404/405), body parsing (400), DRF-style paging (`limit`/`offset` fallbacks,
 * absolute `next`/`previous`), 201/204 statuses and the contract's error body.
 */
export function createRest(options: RestOptions): RestLayer {
  const routes = options.routes ?? allRoutes;
  const matcher = new RouteMatcher(routes);
  const fields = new Set<string>([...routes.map((route) => route.field), INGEST_FIELD]);
  const hidden = new Set(options.hiddenFields ?? allHiddenFields);
  const schema = filterSchema({
    schema: buildSchema(options.apiSdl),
    rootFieldFilter: (operation, name) => fields.has(`${operation}.${name}`),
    objectFieldFilter: (type, name) => !hidden.has(`${type}.${name}`),
  });
  const printed = new WeakMap<DocumentNode, string>();
  const sofa = createSofaRouter(
    createSofa({
      basePath: API_PREFIX,
      schema,
      routes: Object.fromEntries(
        routes.map((route) => [route.field, { method: route.method, path: route.path, responseStatus: route.status ?? 200, description: route.description }]),
      ),
      execute: (async (args: { document: DocumentNode; variableValues?: Record<string, unknown>; contextValue: RestContext }) => {
        let query = printed.get(args.document);
        if (!query) {
          query = print(args.document);
          printed.set(args.document, query);
        }
        const variables = withBodyFields(schema, args.document, args.variableValues ?? {}, args.contextValue.bodyFields);
        const result = await options.execute({ query, variables, authorization: args.contextValue.authorization });
        absolutizePageLinks(result, args.contextValue.publicUrl);
        absolutizeRecordUrls(result, args.contextValue.publicUrl);
        return result;
      }) as never,
      errorHandler: (errors) => contractResponse(errors[0] ?? { message: SERVER_ERROR_BODY.detail }, options.log, errors) as never,
      openAPI: {
        info: {
          title: 'Analytics Platform Management API',
          version: '1.0.0',
          description: 'REST compatibility layer: the documented paths, projected from the GraphQL API.',
        },
      },
      // Only the document's schemas: SOFA reads arguments by their GraphQL types.
      customScalars: scalarSchemas(),
    }),
  );
  const handlers = sofaHandlers(sofa);
  const openapi = restOpenApi((sofa as unknown as { openAPIDocument: Record<string, unknown> }).openAPIDocument, routes, API_PREFIX);

  return {
    openapi,
    ingest: createIngest({ execute: options.execute, log: options.log, maxBodyBytes: options.maxIngestBodyBytes ?? DEFAULT_MAX_INGEST_BODY_BYTES }),
    takesLargeBody(method: string, url: string): boolean {
      const path = new URL(url, 'http://rest').pathname.slice(API_PREFIX.length) || '/';
      const match = matcher.match(method, path);
      return match.kind === 'route' && match.route.largeBody === true;
    },
    allowedMethods(url: string): string[] {
      const match = matcher.match('', new URL(url, 'http://rest').pathname.slice(API_PREFIX.length) || '/');
      return match.kind === 'method_not_allowed' ? withImplicitMethods(match.allowed) : [];
    },
    async handle(request: Request): Promise<Response> {
      const startedAt = performance.now();
      const url = new URL(request.url);
      const path = url.pathname.slice(API_PREFIX.length) || '/';
      const docs = serveDocs(request, path, openapi);
      if (docs) return docs;
      if (request.method === 'OPTIONS') return describePath(path);
      // HEAD is GET without the body, as Django serves it.
      const head = request.method === 'HEAD';
      const match = matcher.match(head ? 'GET' : request.method, path);
      const response = await answerRoute(request, url, match);
      recordRequest('rest', match.kind === 'route' ? match.route.field : match.kind, response.status, startedAt);
      return head ? new Response(null, { status: response.status, headers: response.headers }) : response;
    },
  };

  /**
   * OPTIONS, as DRF answers it: 200 with the methods the path takes (`Allow`) and what it renders
   * and parses. No key is needed, and no operation runs.
   */
  function describePath(path: string): Response {
    const match = matcher.match('', path);
    if (match.kind !== 'method_not_allowed') return fail(new NotFoundError());
    const routeOf = (method: HttpMethod) => matcher.match(method, path) as Extract<Match, { kind: 'route' }>;
    const described = routeOf(match.allowed.includes('GET') ? 'GET' : match.allowed[0]!).route;
    const body = { name: described.summary, description: described.description ?? '', renders: ['application/json'], parses: ['application/json'] };
    return Response.json(body, { headers: { allow: withImplicitMethods(match.allowed).join(', ') } });
  }

  /** A matched (or refused) request answered: its body read and typed, then SOFA, or a stream. */
  async function answerRoute(request: Request, url: URL, found: Match): Promise<Response> {
    if (found.kind === 'not_found') return fail(new NotFoundError());
    if (found.kind === 'method_not_allowed') {
      return fail(new MethodNotAllowedError(request.method), { allow: withImplicitMethods(found.allowed).join(', ') });
    }
    const { route } = found;
    const read = await readBody(request, route.method);
    if (read instanceof BodyRefusal) return refusedFirst(request, url, route.field, read);
    const pathNames = pathParameterNames(route);
    const body = validated(() => read && typedBody(schema, route.field, withoutNames(read, pathNames), [...pathNames]));
    if (body instanceof Response) return body;
    const { authorization, source } = restCredential(request.headers, body, url.searchParams);
    const throttled = await throttledOutside(authorization, source);
    if (throttled) return throttled;
    // The query string is typed once the key has been throttled (DRF throttles before a view reads
    // it) and `@current` bound: an alias passes some path ids in it.
    const match = await bindCurrent(found, options, authorization);
    if (match instanceof Response) return namingKeySource(match, source);
    const query = validated(() => typedQuery(schema, route.field, pagingQuery(url.searchParams, match.query, route.ownLimit === true, pathNames)));
    if (query instanceof Response) return query;
    if (match.route.eventStream && (request.headers.get('accept') ?? '').includes('text/event-stream')) {
      return match.route.eventStream.handler(request, { ...body, project_id: Number(match.params.project_id) }, options, authorization);
    }
    const target = `http://rest${API_PREFIX}${match.path}${query.size > 0 ? `?${query}` : ''}`;
    const context: RestContext = { authorization, publicUrl: url, bodyFields: body };
    // Every route has its handler: restOpenApi refuses to start where SOFA has no operation for one.
    const response = await handlers.get(routeKey(match.route))!(withParams(new FetchRequest(target, { method: request.method }), match), context);
    if (match.route.status === 204 && response.ok) return new Response(null, { status: 204 });
    return namingKeySource(response, source);
  }

  /**
   * A key carried in the body or the query string is throttled here: the listener throttles by the
   * Authorization header before the body is read, so it never sees those.
   */
  async function throttledOutside(authorization: string | null, source: KeySource): Promise<Response | undefined> {
    if (source === 'Authorization header' || !authorization || !options.throttle) return undefined;
    const verdict = await options.throttle(authorization);
    if (verdict.allowed) return undefined;
    const throttled = new ThrottledError(verdict.retryAfterSeconds);
    return contractResponse(throttled, options.log);
  }

  /**
   * A body that cannot be used answers as PostHog's does: its key's 401 or 403 first, for DRF
   * authenticates and checks permissions before it parses a body; then the 400. A body that is not
   * JSON, with no key in the header or the query string, stays a 400 (DRF parsed it looking for
   * one); JSON that is no object, with none, is a 401 (there was none to find).
   */
  async function refusedFirst(request: Request, url: URL, field: string, refusal: BodyRefusal): Promise<Response> {
    if (!options.authorize) return refusal.response;
    const { authorization, source } = restCredential(request.headers, undefined, url.searchParams);
    if (!authorization && refusal.unreadable) return refusal.response;
    const throttled = await throttledOutside(authorization, source);
    if (throttled) return throttled;
    const refused = await options.authorize(authorization, field);
    return refused ? namingKeySource(fail(refused), source) : refusal.response;
  }
}

/** A body that cannot be used, with its 400; `unreadable` when it is not even JSON. */
class BodyRefusal {
  constructor(
    readonly response: Response,
    readonly unreadable: boolean,
  ) {}
}

/** SOFA's handler of a route, as fets calls it: the request (with its path `params`) and the server's context. */
type SofaHandler = (request: Request, serverContext: RestContext) => Promise<Response>;

function routeKey(route: { method?: string; path: string }): string {
  return `${route.method} ${route.path}`;
}

/**
 * SOFA's handler of every route, by method and path. A matched request goes straight to its
 * handler: SOFA's router (fets) would match the path again, trying the URLPattern of every route
 * with a parameter in turn (much of a REST request's time), and has nothing else to do for it
 * (SOFA's routes carry plain JSON schemas, which fets's TypeBox checks pass over).
 */
function sofaHandlers(router: ReturnType<typeof createSofaRouter>): Map<string, SofaHandler> {
  return new Map(router.__routes.map((route) => [routeKey(route), route.handler as unknown as SofaHandler]));
}

/**
 * The request with the `params` fets gives a handler: the route's own path parameters (an alias's
 * others travel in the query string), each decoded when read, so that a malformed one fails in
 * SOFA's handler with its 400, as under fets.
 */
function withParams(request: Request, match: Extract<Match, { kind: 'route' }>): Request {
  const params = {};
  for (const [name, value] of Object.entries(match.params)) {
    if (!Object.hasOwn(match.query, name)) Object.defineProperty(params, name, { get: () => decodeURIComponent(value), enumerable: true });
  }
  return Object.defineProperty(request, 'params', { value: params });
}

/** The body without the fields of these names (the route's path parameters: see `pathParameterNames`). */
function withoutNames(body: Record<string, unknown>, names: ReadonlySet<string>): Record<string, unknown> {
  if (!Object.keys(body).some((key) => names.has(key))) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !names.has(key)));
}

/** What `read` returns, or the 400 of the ValidationError it throws. */
function validated<T>(read: () => T): T | Response {
  try {
    return read();
  } catch (error) {
    if (error instanceof ValidationError) return fail(error);
    throw error;
  }
}

function fail(error: AppError, headers: Record<string, string> = {}): Response {
  const { status, body } = contractError(error);
  return errorResponse(status, body, headers);
}

/** The JSON body of a write, or a 400 for one that is not a JSON object. */
async function readBody(request: Request, method: string): Promise<Record<string, unknown> | undefined | BodyRefusal> {
  // A DELETE may name what it deletes in a body (`{"tag_name": …}`), as PostHog's clients send it.
  if (method === 'GET') return undefined;
  const bytes = request instanceof ReadBodyRequest ? request.readBytes : Buffer.from(await request.arrayBuffer());
  const text = strictUtf8Text(bytes);
  if (text === undefined) return new BodyRefusal(fail(new ParseError(NOT_UTF8)), true);
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return new BodyRefusal(fail(new ParseError(`JSON parse error - ${(error as Error).message}`)), true);
  }
  if (exceedsDepth(parsed)) return new BodyRefusal(fail(new ValidationError(`JSON nests deeper than ${MAX_JSON_DEPTH} levels.`)), true);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const got = Array.isArray(parsed) ? 'list' : parsed === null ? 'null' : typeof parsed;
    return new BodyRefusal(fail(new ValidationError(`Invalid data. Expected a dictionary, but got ${got}.`)), false);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The query string passed on, with an alias path's extra parameters: as in DRF, a `limit` or
 * `offset` that is not a valid number falls back to the default instead of failing (unless the
 * route's `limit` is its own argument).
 */
function pagingQuery(params: URLSearchParams, fromPath: Record<string, string>, ownLimit: boolean, pathNames: ReadonlySet<string>): URLSearchParams {
  const kept = new URLSearchParams(fromPath);
  for (const [name, value] of params) {
    if (name === 'limit' && !ownLimit && !/^[1-9]\d{0,8}$/.test(value)) continue;
    if (name === 'offset' && !/^\d{1,9}$/.test(value)) continue;
    // A path parameter (of any of the route's paths) is read from the path only. A key is no argument.
    if (pathNames.has(name) || name === KEY_PARAMETER) continue;
    kept.append(name, value);
  }
  return kept;
}

/**
 * Lists answer `next` (and `previous`, where they have one) as relative references; REST callers
 * get absolute URLs of their request.
 */
function absolutizePageLinks(result: ExecutionResult, publicUrl: URL): void {
  for (const value of Object.values(result.data ?? {})) {
    const page = value as { next?: unknown; previous?: unknown } | null;
    if (!page || typeof page !== 'object' || !('next' in page)) continue;
    page.next = absolutePageUrl(publicUrl, page.next as string | null);
    if ('previous' in page) page.previous = absolutePageUrl(publicUrl, page.previous as string | null);
  }
}

/**
 * A record's `url` that GraphQL answers as a path (`/api/…`: the subgraph does not know the host
 * it is reached on) is absolute over REST, as PostHog's, on the caller's origin: records at the
 * top of an answer and in its `results`.
 */
function absolutizeRecordUrls(result: ExecutionResult, publicUrl: URL): void {
  const absolutize = (record: unknown) => {
    const item = record as { url?: unknown; openapi?: unknown; servers?: unknown } | null;
    if (item && typeof item === 'object' && typeof item.url === 'string' && item.url.startsWith('/api/')) item.url = new URL(item.url, publicUrl.origin).toString();
    // A saved endpoint's OpenAPI document names the site it is served from, as PostHog's does.
    if (item && typeof item.openapi === 'string' && Array.isArray(item.servers)) item.servers = [{ url: publicUrl.origin }];
  };
  for (const value of Object.values(result.data ?? {})) {
    absolutize(value);
    const results = (value as { results?: unknown } | null)?.results;
    if (Array.isArray(results)) results.forEach(absolutize);
  }
}

/** The request's own URL with the parameters of a relative page reference (`?limit=…&offset=…`, `?limit=…&cursor=…`). */
function absolutePageUrl(request: URL, reference: string | null): string | null {
  if (reference === null) return null;
  const target = new URL(request.toString());
  const page = new URLSearchParams(reference.replace(/^\?/, ''));
  target.searchParams.delete('offset');
  for (const [name, value] of page) target.searchParams.set(name, value);
  return target.toString();
}

/** A path's methods as its `Allow` names them, as DRF's do: HEAD where GET is, and OPTIONS. */
function withImplicitMethods(methods: readonly string[]): string[] {
  return [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
}
