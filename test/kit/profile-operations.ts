/**
 * Every customer profile config operation, over REST and over GraphQL, so that the scope matrix
 * and the tenant-isolation suite cover each one the same way.
 */
export interface Operation {
  name: string;
  scope: 'customer_profile_config:read' | 'customer_profile_config:write';
  rest(environmentId: number, configId: string): { method: string; path: string; body?: unknown; status: number };
  graphql(environmentId: number, configId: string): { query: string; variables: Record<string, unknown>; field: string };
  /** Whether it changes data (the isolation suite checks nothing changed). */
  writes: boolean;
}

const base = (environmentId: number) => `/api/environments/${environmentId}/customer_profile_configs/`;

export const profileOperations: Operation[] = [
  {
    name: 'list',
    scope: 'customer_profile_config:read',
    writes: false,
    rest: (env) => ({ method: 'GET', path: base(env), status: 200 }),
    graphql: (env) => ({
      query: 'query ($p: Int!) { customer_profile_configs(project_id: $p) { count results { id } } }',
      variables: { p: env },
      field: 'customer_profile_configs',
    }),
  },
  {
    name: 'get',
    scope: 'customer_profile_config:read',
    writes: false,
    rest: (env, id) => ({ method: 'GET', path: `${base(env)}${id}/`, status: 200 }),
    graphql: (env, id) => ({
      query: 'query ($p: Int!, $id: ID!) { customer_profile_config(project_id: $p, id: $id) { id } }',
      variables: { p: env, id },
      field: 'customer_profile_config',
    }),
  },
  {
    name: 'create',
    scope: 'customer_profile_config:write',
    writes: true,
    rest: (env) => ({ method: 'POST', path: base(env), body: { scope: 'person', content: { from: 'matrix' } }, status: 201 }),
    graphql: (env) => ({
      query: 'mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: person, content: {from: "matrix"}) { id } }',
      variables: { p: env },
      field: 'create_customer_profile_config',
    }),
  },
  {
    name: 'update',
    scope: 'customer_profile_config:write',
    writes: true,
    rest: (env, id) => ({ method: 'PATCH', path: `${base(env)}${id}/`, body: { sidebar: { changed: true } }, status: 200 }),
    graphql: (env, id) => ({
      query: 'mutation ($p: Int!, $id: ID!) { update_customer_profile_config(project_id: $p, id: $id, sidebar: {changed: true}) { id } }',
      variables: { p: env, id },
      field: 'update_customer_profile_config',
    }),
  },
  {
    name: 'delete',
    scope: 'customer_profile_config:write',
    writes: true,
    rest: (env, id) => ({ method: 'DELETE', path: `${base(env)}${id}/`, status: 204 }),
    graphql: (env, id) => ({
      query: 'mutation ($p: Int!, $id: ID!) { delete_customer_profile_config(project_id: $p, id: $id) }',
      variables: { p: env, id },
      field: 'delete_customer_profile_config',
    }),
  },
];
