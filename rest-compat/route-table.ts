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
  params: string[];
}

export type Match =
  | { kind: 'route'; route: RestRoute; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] }
  | { kind: 'not_found' };

/** Finds the route of a method and path (trailing slash optional), or says why there is none. */
export class RouteMatcher {
  private readonly compiled: CompiledRoute[];

  constructor(routes: RestRoute[]) {
    this.compiled = routes.map((route) => {
      const params: string[] = [];
      const integers = new Set([...INTEGER_PARAMS, ...(route.integerParams ?? [])]);
      const source = route.path.replace(/:([a-z_]+)/g, (_, name: string) => {
        params.push(name);
        return integers.has(name) ? '(\\d+)' : '([^/]+)';
      });
      return { route, params, pattern: new RegExp(`^${source}/?$`) };
    });
  }

  match(method: string, path: string): Match {
    const allowed: HttpMethod[] = [];
    for (const { route, pattern, params } of this.compiled) {
      const found = pattern.exec(path);
      if (!found) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const values = Object.fromEntries(params.map((name, index) => [name, decodeURIComponent(found[index + 1]!)]));
      return { kind: 'route', route, params: values };
    }
    return allowed.length > 0 ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  }
}
