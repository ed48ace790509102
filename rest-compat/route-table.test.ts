import { describe, expect, it } from 'vitest';
import { RouteMatcher } from './route-table.js';
import { routes } from './routes/index.js';

describe(RouteMatcher.name, () => {
  const matcher = new RouteMatcher(routes);

  it('matches with and without the trailing slash', () => {
    for (const path of ['/environments/12/customer_profile_configs/abc/', '/environments/12/customer_profile_configs/abc']) {
      expect(matcher.match('GET', path)).toMatchObject({ kind: 'route', route: { field: 'Query.customer_profile_config' } });
    }
  });

  it('says which methods a known path has', () => {
    expect(matcher.match('PUT', '/environments/1/customer_profile_configs/')).toEqual({ kind: 'method_not_allowed', allowed: ['GET', 'POST'] });
  });

  it('treats a non-integer project id and an unknown path as not found', () => {
    expect(matcher.match('GET', '/environments/abc/customer_profile_configs/')).toEqual({ kind: 'not_found' });
    expect(matcher.match('GET', '/environments/2147483648/customer_profile_configs/')).toEqual({ kind: 'not_found' });
    expect(matcher.match('GET', '/environments/99999999999/customer_profile_configs/')).toEqual({ kind: 'not_found' });
    expect(matcher.match('GET', '/personal_api_keys/%E0%A4%A/')).toMatchObject({ kind: 'route' });
    expect(matcher.match('POST', '/webhook')).toEqual({ kind: 'not_found' });
    expect(matcher.match('GET', '/environments/12/customer_profile_configs/abc/extra/')).toEqual({ kind: 'not_found' });
    expect(matcher.match('GET', '/environments/12//customer_profile_configs/')).toEqual({ kind: 'not_found' });
  });

  it('takes `@current` for an organization, project or environment id, and says what it names there', () => {
    expect(matcher.match('GET', '/environments/@current/customer_profile_configs/')).toMatchObject({
      kind: 'route',
      params: { project_id: '@current' },
      placements: { project_id: 'environment' },
    });
    expect(matcher.match('GET', '/projects/@current/environments/@current/')).toMatchObject({
      kind: 'route',
      route: { field: 'Query.environment' },
      query: { project_id: '@current' },
      placements: { project_id: 'project', id: 'environment' },
    });
    expect(matcher.match('GET', '/organizations/@current/projects/@current/')).toMatchObject({ placements: { organization_id: 'organization', id: 'project' } });
    // As a client that encodes path parameters sends it (openapi-fetch does).
    expect(matcher.match('GET', '/environments/%40current/')).toMatchObject({ kind: 'route', params: { id: '%40current' }, placements: { id: 'environment' } });
    // Only in those places: elsewhere it is no integer id.
    expect(matcher.match('GET', '/environments/1/endpoints/x/versions/@current/')).toEqual({ kind: 'not_found' });
    expect(matcher.match('GET', '/environments/@currentx/customer_profile_configs/')).toEqual({ kind: 'not_found' });
  });

  it('finds every route of the table on its own path and on each alias', () => {
    for (const route of routes) {
      for (const path of [route.path, ...(route.aliases ?? [])]) {
        const request = path.replace(/:[a-z_]+/g, '7');
        const found = matcher.match(route.method, request);
        expect(found.kind === 'route' ? found.route.field : found, `${route.method} ${request}`).toBe(route.field);
      }
    }
  });

  it('tries a path that starts with a parameter whatever the first segment', () => {
    const local = new RouteMatcher([
      { method: 'GET', path: '/:kind/things', field: 'Query.things', summary: 'Things' },
      { method: 'GET', path: '/users/things', field: 'Query.user_things', summary: 'User things' },
    ]);
    expect(local.match('GET', '/teams/things/')).toMatchObject({ kind: 'route', route: { field: 'Query.things' }, params: { kind: 'teams' } });
    expect(local.match('GET', '/users/things/')).toMatchObject({ kind: 'route', route: { field: 'Query.user_things' } });
    expect(local.match('POST', '/users/things/')).toEqual({ kind: 'method_not_allowed', allowed: ['GET'] });
  });

  it('maps every root field at most once (SOFA routes one field to one path)', () => {
    const fields = routes.map((route) => route.field);
    expect(new Set(fields).size).toBe(fields.length);
  });
});

describe('aliases', () => {
  it('serve an operation on its own path, passing the parameters that path lacks as arguments', () => {
    const matcher = new RouteMatcher(routes);
    expect(matcher.match('GET', '/projects/7/environments/9/')).toMatchObject({ kind: 'route', path: '/environments/9', query: { project_id: '7' } });
    expect(matcher.match('PATCH', '/projects/7/environments/9/reset_token')).toMatchObject({ path: '/environments/9/reset_token', query: { project_id: '7' } });
  });

  it('every alias has every parameter of its route\'s path', () => {
    for (const route of routes) {
      const needed = route.path.match(/:[a-z_]+/g) ?? [];
      for (const alias of route.aliases ?? []) for (const param of needed) expect(alias, `${alias} lacks ${param}`).toContain(param);
    }
  });
});
