import type { RouterExecutor, RouterSubscriber } from './router.ports.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** One documented REST operation and the root field of the public schema that serves it. */
export interface RestRoute {
  method: HttpMethod;
  /** Under `/api`, without the trailing slash; `:name` is the argument of the same name. */
  path: string;
  /**
   * Other paths of the same operation (SOFA routes a field once): a request on one is served as
   * on `path`, its parameters that `path` lacks passed as arguments in the query string. Each
   * alias must have every parameter of `path`.
   */
  aliases?: string[];
  /** `Query.<field>` or `Mutation.<field>`. */
  field: `${'Query' | 'Mutation'}.${string}`;
  /** 200 unless given; DELETE routes answer 204 with no body. */
  status?: 200 | 201 | 204;
  /** One line for the OpenAPI document, in the API document's words where it has some. */
  summary: string;
  description?: string;
  /** Callable without a key (a mailed token is the credential); a key sent must still hold the scope. */
  public?: boolean;
  /** Path parameters besides `project_id` that are integer ids. */
  integerParams?: string[];
  /** Its `limit` is the operation's own argument, not a page size: passed on as given, not dropped when it is no page size. */
  ownLimit?: boolean;
  /** Takes whole traces or events (megabytes): its body may reach MAX_LARGE_BODY_BYTES. */
  largeBody?: boolean;
  /** With `Accept: text/event-stream` the operation answers a stream instead of JSON: what it carries, and who streams it. */
  eventStream?: { description: string; handler: EventStreamHandler };
}

const pathNames = new WeakMap<RestRoute, ReadonlySet<string>>();

/**
 * The parameters of a route's paths, its aliases' too: each is only ever read from a path. On
 * `/environments/:id`, a `project_id` in the query string or the body (which `/projects/
 * :project_id/environments/:id` takes from its path) is no argument, as PostHog ignores it.
 */
export function pathParameterNames(route: RestRoute): ReadonlySet<string> {
  let names = pathNames.get(route);
  if (!names) {
    names = new Set([route.path, ...(route.aliases ?? [])].flatMap((path) => [...path.matchAll(/:([a-z_]+)/g)].map((param) => param[1]!)));
    pathNames.set(route, names);
  }
  return names;
}

/**
 * Answers an operation as a stream: its request, its arguments (path and body), the router to run
 * it through, and the caller's credential (wherever the request carried it).
 */
export type EventStreamHandler = (
  request: Request,
  variables: Record<string, unknown>,
  router: { execute: RouterExecutor; subscribe: RouterSubscriber },
  authorization: string | null,
) => Promise<Response>;

/** Path parameters that are integer ids: anything else in their place (but `@current`, where it may stand) is an unknown path (404). */
const INTEGER_PARAMS = ['project_id'];

/**
 * What `@current` names in a path, by the segment before the parameter: PostHog takes it, in
 * place of an organization, project or environment id, for the caller's user's current one.
 */
const CURRENT_OF = new Map<string, PlacementKind>([
  ['organizations', 'organization'],
  ['projects', 'project'],
  ['environments', 'environment'],
]);

export type PlacementKind = 'organization' | 'project' | 'environment';

/** The path id PostHog reads as the caller's user's current organization, project or environment. */
export const CURRENT = '@current';

/** Whether a raw path segment is `@current`, as clients that encode path parameters send it too (`%40current`). */
export function isCurrent(segment: string | undefined): boolean {
  return segment === CURRENT || segment === '%40current';
}

/** What `@current` names for a parameter of a path (`:name` or OpenAPI's `{name}`), if it may be one. */
export function placementKind(path: string, name: string): PlacementKind | undefined {
  const parts = path.split('/');
  const index = parts.findIndex((part) => part === `:${name}` || part === `{${name}}`);
  return index > 0 ? CURRENT_OF.get(parts[index - 1]!) : undefined;
}

/** Integer path ids are PostgreSQL `integer`s: a larger number names nothing that exists. */
const MAX_INTEGER_ID = 2_147_483_647;

interface CompiledPath {
  route: RestRoute;
  pattern: RegExp;
  names: string[];
  integers: Set<string>;
  /** The parameters that may be `@current`, and what it names in each. */
  placements: Record<string, PlacementKind>;
  /** A `1` per fixed segment and a `0` per parameter: of two paths that match, the higher is the more specific. */
  rank: string;
  /** The path's first segment (`:name` for a parameter). */
  first: string;
  /** How many segments it has: a parameter matches exactly one. */
  segments: number;
}

export type Match =
  | {
      kind: 'route';
      route: RestRoute;
      /** The path SOFA serves the field on, with this request's parameters. */
      path: string;
      /** Parameters of an alias path that the route's own path lacks. */
      query: Record<string, string>;
      /** Every path parameter of the request. */
      params: Record<string, string>;
      /** The parameters that may be `@current`, and what it names in each. */
      placements: Record<string, PlacementKind>;
    }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] }
  | { kind: 'not_found' };

/** Finds the route of a method and path (trailing slash optional), or says why there is none. */
export class RouteMatcher {
  /**
   * The compiled paths that can match a path, by its first segment and its number of segments, in
   * the table's order: a request tries the few paths of its resource at its depth, not the two
   * hundred of the table (nor the hundred under `environments`). A path that starts with a
   * parameter is in every list of its depth, and `anyFirst` holds those alone.
   */
  private readonly byShape = new Map<string, CompiledPath[]>();
  private readonly anyFirst = new Map<number, CompiledPath[]>();

  constructor(routes: RestRoute[]) {
    const compiled = routes.flatMap((route) => [route.path, ...(route.aliases ?? [])].map((path) => compile(route, path)));
    const isParameter = (first: string) => first.startsWith(':');
    for (const entry of compiled) {
      if (isParameter(entry.first)) this.anyFirst.set(entry.segments, [...(this.anyFirst.get(entry.segments) ?? []), entry]);
    }
    for (const { first, segments } of compiled) {
      const key = shapeKey(first, segments);
      if (isParameter(first) || this.byShape.has(key)) continue;
      this.byShape.set(key, compiled.filter((entry) => entry.segments === segments && (entry.first === first || isParameter(entry.first))));
    }
  }

  /**
   * Of the paths that match, the most specific wins (fixed segments before parameters, from the
   * left), as Django's router puts a viewset's actions before its detail route: a method that path
   * does not take is a 405 naming the ones it does, never a lookup of `verify_email` as a user.
   */
  match(method: string, path: string): Match {
    let best: { rank: string; allowed: HttpMethod[]; found?: Match } | undefined;
    const segments = segmentCount(path);
    for (const { route, pattern, names, integers, placements, rank } of this.byShape.get(shapeKey(firstSegment(path), segments)) ?? this.anyFirst.get(segments) ?? []) {
      const found = pattern.exec(path);
      if (!found) continue;
      const values = Object.fromEntries(names.map((name, index) => [name, found[index + 1]!]));
      if (names.some((name) => integers.has(name) && Number(values[name]) > MAX_INTEGER_ID)) continue;
      if (best && rank < best.rank) continue;
      if (!best || rank > best.rank) best = { rank, allowed: [] };
      best.allowed.push(route.method);
      if (route.method !== method || best.found) continue;
      best.found = boundRoute(route, values, placements);
    }
    if (!best) return { kind: 'not_found' };
    return best.found ?? { kind: 'method_not_allowed', allowed: [...new Set(best.allowed)] };
  }
}

/** The route with these parameter values: the path SOFA serves it on, and an alias's extra parameters as its query. */
export function boundRoute(route: RestRoute, values: Record<string, string>, placements: Record<string, PlacementKind>): Extract<Match, { kind: 'route' }> {
  const query = Object.fromEntries(Object.entries(values).filter(([name]) => !route.path.includes(`:${name}`)));
  return { kind: 'route', route, path: route.path.replace(/:([a-z_]+)/g, (_, name: string) => values[name]!), query, params: values, placements };
}

function compile(route: RestRoute, path: string): CompiledPath {
  const integers = new Set([...INTEGER_PARAMS, ...(route.integerParams ?? [])]);
  const names: string[] = [];
  const placements: Record<string, PlacementKind> = {};
  const source = path
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return part;
      const name = part.slice(1);
      names.push(name);
      const kind = placementKind(path, name);
      if (kind) placements[name] = kind;
      if (!integers.has(name)) return '([^/]+)';
      return kind ? '(\\d{1,10}|@current|%40current)' : '(\\d{1,10})';
    })
    .join('/');
  const rank = path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? '0' : '1'))
    .join('');
  return { route, names, integers, placements, rank, first: firstSegment(path), segments: segmentCount(path), pattern: new RegExp(`^${source}/?$`) };
}

function shapeKey(first: string, segments: number): string {
  return `${segments}/${first}`;
}

/** The segments of a path, as its pattern matches them: one per name between slashes, a trailing slash aside. */
function segmentCount(path: string): number {
  let count = 0;
  for (const segment of path.split('/')) if (segment !== '') count += 1;
  return count;
}

/** `projects` of `/projects/1/…`. */
function firstSegment(path: string): string {
  return path.split('/', 2)[1] ?? '';
}
