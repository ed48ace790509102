import type { RestRoute } from '../route-table.js';

const members = '/organizations/:organization_id/members';

/**
 * PostHog's members endpoints (not in the API document; REST callers written for PostHog use
 * them to manage roles), keyed by the member's user uuid.
 */
export const organizationMemberRoutes: RestRoute[] = [
  { method: 'GET', path: members, field: 'Query.organization_members', summary: 'List organization members' },
  { method: 'PATCH', path: `${members}/:user_uuid`, field: 'Mutation.update_organization_member', summary: "Change a member's level" },
  { method: 'DELETE', path: `${members}/:user_uuid`, field: 'Mutation.remove_organization_member', status: 204, summary: 'Remove a member (or leave the organization)' },
];
