import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../subgraphs/shared/logger.js';
import { createRest } from './rest.js';
import type { HttpMethod } from './route-table.js';
import { routes } from './routes/index.js';

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Every documented path (aliases too), each with the methods the route table gives it. */
function documentedPaths(): Map<string, Set<HttpMethod>> {
  const paths = new Map<string, Set<HttpMethod>>();
  for (const route of routes) {
    for (const path of [route.path, ...(route.aliases ?? [])]) {
      paths.set(path, (paths.get(path) ?? new Set()).add(route.method));
    }
  }
  return paths;
}

/** A path of the pattern: integer ids as 1, other parameters as a value no fixed segment has. */
function concrete(path: string): string {
  return path.replace(/:([a-z_]+)/g, (_, name: string) => (name === 'project_id' || name === 'id' || name.endsWith('_number') ? '1' : 'some-value'));
}

const rest = createRest({
  apiSdl: readFileSync(resolve('schema/api.graphql'), 'utf8'),
  // A refused method is answered before any operation runs.
  execute: () => Promise.reject(new Error('no operation should run')),
  subscribe: () => {
    throw new Error('no operation should run');
  },
  log: createLogger('silent'),
});

const cases = [...documentedPaths()].flatMap(([path, allowed]) =>
  METHODS.filter((method) => !allowed.has(method)).map((method) => ({ path, method, allowed: [...allowed, ...(allowed.has('GET') ? ['HEAD'] : []), 'OPTIONS'].sort() })),
);

describe('a documented path called with a method it does not take', () => {
  it.each(cases)('$method $path answers 405 naming $allowed', async ({ path, method, allowed }) => {
    for (const url of [`http://rest/api${concrete(path)}/`, `http://rest/api${concrete(path)}`]) {
      const response = await rest.handle(new Request(url, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' }));
      expect(response.status, url).toBe(405);
      expect(response.headers.get('allow')!.split(', ').sort()).toEqual(allowed);
      expect(await response.json()).toEqual({ type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${method}" not allowed.`, attr: null });
    }
  });

  it('is a 405 for an action path whose name a detail path would also take (GET /api/users/verify_email/)', async () => {
    const response = await rest.handle(new Request('http://rest/api/users/verify_email/'));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
  });
});
