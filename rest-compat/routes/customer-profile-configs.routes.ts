import type { RestRoute } from '../route-table.js';

const base = '/environments/:project_id/customer_profile_configs';

/** API document section 4.4, plus PATCH and DELETE (PostHog has full CRUD). */
export const customerProfileConfigRoutes: RestRoute[] = [
  { method: 'GET', path: base, field: 'Query.customer_profile_configs', summary: 'List customer profile configs' },
  { method: 'POST', path: base, field: 'Mutation.create_customer_profile_config', status: 201, summary: 'Create a customer profile config' },
  { method: 'GET', path: `${base}/:id`, field: 'Query.customer_profile_config', summary: 'Retrieve a customer profile config' },
  { method: 'PATCH', path: `${base}/:id`, field: 'Mutation.update_customer_profile_config', summary: 'Update a customer profile config' },
  { method: 'DELETE', path: `${base}/:id`, field: 'Mutation.delete_customer_profile_config', status: 204, summary: 'Delete a customer profile config' },
];

/** PostHog's record has no `project`: the GraphQL field joins another subgraph, REST leaves it out. */
export const customerProfileConfigHiddenFields = ['CustomerProfileConfig.project'];
