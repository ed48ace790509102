import type { RestRoute } from '../route-table.js';

const projects = '/organizations/:organization_id/projects';

/** API document section 4.7 (the record and settings operations; the actions follow). */
export const projectRoutes: RestRoute[] = [
  { method: 'GET', path: projects, field: 'Query.projects' },
  { method: 'POST', path: projects, field: 'Mutation.create_project', status: 201 },
  { method: 'GET', path: `${projects}/:id`, field: 'Query.project', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id`, field: 'Mutation.update_project', integerParams: ['id'] },
  { method: 'DELETE', path: `${projects}/:id`, field: 'Mutation.delete_project', status: 204, integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/add_product_intent`, field: 'Mutation.add_project_product_intent', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/complete_product_onboarding`, field: 'Mutation.complete_project_product_onboarding', integerParams: ['id'] },
  {
    method: 'POST',
    // The body's organization_id is the target; the path's organization is the source.
    path: '/organizations/:source_organization_id/projects/:id/change_organization',
    field: 'Mutation.change_project_organization',
    integerParams: ['id'],
  },
  { method: 'GET', path: `${projects}/:id/is_generating_demo_data`, field: 'Query.project_is_generating_demo_data', integerParams: ['id'] },
  {
    method: 'POST',
    path: `${projects}/:id/generate_conversations_public_token`,
    field: 'Mutation.generate_project_conversations_public_token',
    integerParams: ['id'],
  },
  { method: 'GET', path: `${projects}/:id/activity`, field: 'Query.project_activity', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/reset_token`, field: 'Mutation.reset_project_token', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/rotate_secret_token`, field: 'Mutation.rotate_project_secret_token', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/delete_secret_token_backup`, field: 'Mutation.delete_project_secret_token_backup', integerParams: ['id'] },
];

const environment = '/environments/:id';
const inProject = '/projects/:project_id/environments/:id';

/**
 * Section 4.8, under both prefixes PostHog serves environments on: reading and changing settings
 * (users need them beside the actions), settings_as_of and the token actions.
 */
export const environmentRoutes: RestRoute[] = [
  { method: 'GET', path: environment, aliases: [inProject], field: 'Query.environment', integerParams: ['id'] },
  { method: 'PATCH', path: environment, aliases: [inProject], field: 'Mutation.update_environment', integerParams: ['id'] },
  ...(
    [
      ['GET', 'settings_as_of', 'Query.environment_settings_as_of'],
      ['GET', 'is_generating_demo_data', 'Query.environment_is_generating_demo_data'],
      ['GET', 'default_evaluation_tags', 'Query.environment_default_evaluation_tags'],
      ['GET', 'event_ingestion_restrictions', 'Query.environment_event_ingestion_restrictions'],
      ['POST', 'default_evaluation_tags', 'Mutation.add_environment_default_evaluation_tag'],
      ['POST', 'generate_conversations_public_token', 'Mutation.generate_environment_conversations_public_token'],
      ['PATCH', 'add_product_intent', 'Mutation.add_environment_product_intent'],
      ['PATCH', 'complete_product_onboarding', 'Mutation.complete_environment_product_onboarding'],
      ['PATCH', 'reset_token', 'Mutation.reset_environment_token'],
      ['PATCH', 'rotate_secret_token', 'Mutation.rotate_environment_secret_token'],
      ['PATCH', 'delete_secret_token_backup', 'Mutation.delete_environment_secret_token_backup'],
    ] as const
  ).map(([method, action, field]): RestRoute => ({
    method,
    path: `${environment}/${action}`,
    aliases: [`${inProject}/${action}`],
    field,
    integerParams: ['id'],
  })),
  {
    method: 'DELETE',
    path: `${environment}/default_evaluation_tags`,
    aliases: [`${inProject}/default_evaluation_tags`],
    field: 'Mutation.remove_environment_default_evaluation_tag',
    status: 204,
    integerParams: ['id'],
  },
];
