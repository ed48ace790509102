export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** One documented REST operation and the root field of the public schema that serves it. */
export interface RestRoute {
  method: HttpMethod;
  /** Under `/api`, without the trailing slash; `:name` is the argument of the same name. */
  path: string;
  /** `Query.<field>` or `Mutation.<field>`. */
  field: `${'Query' | 'Mutation'}.${string}`;
  /** 200 unless given; DELETE routes answer 204 with no body. */
  status?: 200 | 201 | 204;
  description?: string;
  /** Path parameters besides `project_id` that are integer ids. */
  integerParams?: string[];
}

/** Path parameters that are integer ids: anything else in their place is an unknown path (404). */
const INTEGER_PARAMS = ['project_id'];

interface CompiledRoute {
  route: RestRoute;
  pattern: RegExp;
}

/** Integer path ids are PostgreSQL `integer`s: a larger number names nothing that exists. */
const MAX_INTEGER_ID = 2_147_483_647;

export type Match =
  | { kind: 'route'; route: RestRoute }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] }
  | { kind: 'not_found' };

/** Finds the route of a method and path (trailing slash optional), or says why there is none. */
export class RouteMatcher {
  private readonly compiled: CompiledRoute[];

  constructor(routes: RestRoute[]) {
    this.compiled = routes.map((route) => {
      const integers = new Set([...INTEGER_PARAMS, ...(route.integerParams ?? [])]);
      // Integer ids are the only capture groups: match() checks that each fits an integer column.
      const source = route.path.replace(/:([a-z_]+)/g, (_, name: string) => (integers.has(name) ? '(\\d{1,10})' : '[^/]+'));
      return { route, pattern: new RegExp(`^${source}/?$`) };
    });
  }

  match(method: string, path: string): Match {
    const allowed: HttpMethod[] = [];
    for (const { route, pattern } of this.compiled) {
      const found = pattern.exec(path);
      if (!found || found.slice(1).some((id) => Number(id) > MAX_INTEGER_ID)) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      return { kind: 'route', route };
    }
    return allowed.length > 0 ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  }
}
