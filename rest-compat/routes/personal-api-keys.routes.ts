import type { RestRoute } from '../route-table.js';

/** The platform contract's personal API key resource (a plain array when listed, as in PostHog). */
export const personalApiKeyRoutes: RestRoute[] = [
  { method: 'GET', path: '/personal_api_keys', field: 'Query.personal_api_keys', summary: 'List personal API keys' },
  { method: 'POST', path: '/personal_api_keys', field: 'Mutation.create_personal_api_key', status: 201, summary: 'Create a personal API key (its value is shown once)' },
  { method: 'GET', path: '/personal_api_keys/:id', field: 'Query.personal_api_key', summary: 'Retrieve a personal API key' },
  { method: 'PATCH', path: '/personal_api_keys/:id', field: 'Mutation.update_personal_api_key', summary: 'Rename a personal API key, or change its scopes' },
  { method: 'POST', path: '/personal_api_keys/:id/roll', field: 'Mutation.roll_personal_api_key', summary: 'Roll a personal API key (a new value)' },
  { method: 'DELETE', path: '/personal_api_keys/:id', field: 'Mutation.delete_personal_api_key', status: 204, summary: 'Revoke a personal API key' },
];
