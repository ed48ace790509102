import type { RestRoute } from '../route-table.js';

/** The platform contract's personal API key resource (a plain array when listed, as in PostHog). */
export const personalApiKeyRoutes: RestRoute[] = [
  { method: 'GET', path: '/personal_api_keys', field: 'Query.personal_api_keys' },
  { method: 'POST', path: '/personal_api_keys', field: 'Mutation.create_personal_api_key', status: 201 },
  { method: 'GET', path: '/personal_api_keys/:id', field: 'Query.personal_api_key' },
  { method: 'PATCH', path: '/personal_api_keys/:id', field: 'Mutation.update_personal_api_key' },
  { method: 'POST', path: '/personal_api_keys/:id/roll', field: 'Mutation.roll_personal_api_key' },
  { method: 'DELETE', path: '/personal_api_keys/:id', field: 'Mutation.delete_personal_api_key', status: 204 },
];
