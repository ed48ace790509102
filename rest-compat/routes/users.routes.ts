import type { RestRoute } from '../route-table.js';

const user = '/users/:uuid';

/**
 * The API document's user operations (section 4.6) and PostHog's `GET`/`PATCH /api/users/:uuid/`
 * (`@me` for the caller). The fixed paths come first: `cancel_email_change_request` would match `:uuid`.
 */
export const userRoutes: RestRoute[] = [
  { method: 'PATCH', path: '/users/cancel_email_change_request', field: 'Mutation.cancel_email_change_request' },
  { method: 'POST', path: '/users/request_email_verification', field: 'Mutation.request_email_verification' },
  { method: 'POST', path: '/users/verify_email', field: 'Mutation.verify_email' },
  { method: 'GET', path: user, field: 'Query.user' },
  { method: 'PATCH', path: user, field: 'Mutation.update_user' },
  { method: 'GET', path: `${user}/two_factor_start_setup`, field: 'Mutation.two_factor_start_setup' },
  { method: 'POST', path: `${user}/two_factor_validate`, field: 'Mutation.two_factor_validate' },
  { method: 'POST', path: `${user}/validate_2fa`, field: 'Mutation.validate_2fa' },
  { method: 'GET', path: `${user}/two_factor_status`, field: 'Query.two_factor_status' },
  { method: 'POST', path: `${user}/two_factor_backup_codes`, field: 'Mutation.two_factor_backup_codes' },
  { method: 'POST', path: `${user}/two_factor_disable`, field: 'Mutation.two_factor_disable' },
];
