import type { RestRoute } from '../route-table.js';

const user = '/users/:uuid';

/**
 * The API document's user operations (section 4.6) and PostHog's `GET`/`PATCH /api/users/:uuid/`
 * (`@me` for the caller). The fixed paths come first: `cancel_email_change_request` would match `:uuid`.
 */
export const userRoutes: RestRoute[] = [
  { method: 'PATCH', path: '/users/cancel_email_change_request', field: 'Mutation.cancel_email_change_request', summary: 'Cancel the pending email change request' },
  { method: 'POST', path: '/users/request_email_verification', field: 'Mutation.request_email_verification', summary: 'Request an email verification', public: true },
  { method: 'POST', path: '/users/verify_email', field: 'Mutation.verify_email', summary: 'Verify an email address with a mailed token', public: true },
  { method: 'GET', path: user, field: 'Query.user', summary: 'Retrieve a user (`@me`: the caller)' },
  { method: 'PATCH', path: user, field: 'Mutation.update_user', summary: 'Update a user account (`@me`: the caller)' },
  { method: 'GET', path: `${user}/two_factor_start_setup`, field: 'Mutation.two_factor_start_setup', summary: 'Start two-factor authentication setup' },
  { method: 'POST', path: `${user}/two_factor_validate`, field: 'Mutation.two_factor_validate', summary: 'Validate two-factor setup with a code' },
  { method: 'POST', path: `${user}/validate_2fa`, field: 'Mutation.validate_2fa', summary: 'Validate a two-factor code' },
  { method: 'GET', path: `${user}/two_factor_status`, field: 'Query.two_factor_status', summary: 'Current two-factor status, with backup codes if enabled' },
  { method: 'POST', path: `${user}/two_factor_backup_codes`, field: 'Mutation.two_factor_backup_codes', summary: 'Regenerate two-factor backup codes' },
  { method: 'POST', path: `${user}/two_factor_disable`, field: 'Mutation.two_factor_disable', summary: 'Disable two-factor authentication and remove all related devices' },
];
