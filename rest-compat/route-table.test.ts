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
  });

  it('maps every root field at most once (SOFA routes one field to one path)', () => {
    const fields = routes.map((route) => route.field);
    expect(new Set(fields).size).toBe(fields.length);
  });
});
