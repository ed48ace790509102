import type { RestRoute } from '../route-table.js';

const projects = '/organizations/:organization_id/projects';

/** API document section 4.7 (the record and settings operations; the actions follow). */
export const projectRoutes: RestRoute[] = [
  { method: 'GET', path: projects, field: 'Query.projects', summary: 'List projects' },
  { method: 'POST', path: projects, field: 'Mutation.create_project', status: 201, summary: 'Create a project' },
  { method: 'GET', path: `${projects}/:id`, field: 'Query.project', summary: 'Retrieve a project', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id`, field: 'Mutation.update_project', summary: "Update a project's settings", integerParams: ['id'] },
  { method: 'DELETE', path: `${projects}/:id`, field: 'Mutation.delete_project', status: 204, summary: 'Delete a project', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/add_product_intent`, field: 'Mutation.add_project_product_intent', summary: 'Add a product intent', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/complete_product_onboarding`, field: 'Mutation.complete_project_product_onboarding', summary: 'Complete product onboarding', integerParams: ['id'] },
  {
    method: 'POST',
    // The body's organization_id is the target; the path's organization is the source.
    path: '/organizations/:source_organization_id/projects/:id/change_organization',
    field: 'Mutation.change_project_organization',
    summary: 'Move the project to another organization',
    integerParams: ['id'],
  },
  { method: 'GET', path: `${projects}/:id/is_generating_demo_data`, field: 'Query.project_is_generating_demo_data', summary: 'Whether demo data is being generated', integerParams: ['id'] },
  {
    method: 'POST',
    path: `${projects}/:id/generate_conversations_public_token`,
    field: 'Mutation.generate_project_conversations_public_token',
    summary: 'Generate a public token for the conversations widget',
    integerParams: ['id'],
  },
  { method: 'GET', path: `${projects}/:id/activity`, field: 'Query.project_activity', summary: "The project's activity log", integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/reset_token`, field: 'Mutation.reset_project_token', summary: 'Reset the project API token', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/rotate_secret_token`, field: 'Mutation.rotate_project_secret_token', summary: 'Rotate the secret token', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/delete_secret_token_backup`, field: 'Mutation.delete_project_secret_token_backup', summary: 'Delete the backup secret token', integerParams: ['id'] },
];

const environment = '/environments/:id';
const inProject = '/projects/:project_id/environments/:id';

/**
 * Section 4.8, under both prefixes PostHog serves environments on: reading and changing settings
 * (users need them beside the actions), settings_as_of and the token actions.
 */
export const environmentRoutes: RestRoute[] = [
  { method: 'GET', path: environment, aliases: [inProject], field: 'Query.environment', summary: 'Retrieve an environment', integerParams: ['id'] },
  { method: 'PATCH', path: environment, aliases: [inProject], field: 'Mutation.update_environment', summary: "Update an environment's settings", integerParams: ['id'] },
  ...(
    [
      ['GET', 'settings_as_of', 'Query.environment_settings_as_of', 'The team settings as of a time'],
      ['GET', 'is_generating_demo_data', 'Query.environment_is_generating_demo_data', 'Whether demo data is being generated'],
      ['GET', 'default_evaluation_tags', 'Query.environment_default_evaluation_tags', 'List the default evaluation tags of a team'],
      ['GET', 'event_ingestion_restrictions', 'Query.environment_event_ingestion_restrictions', 'List event ingestion restrictions'],
      ['POST', 'default_evaluation_tags', 'Mutation.add_environment_default_evaluation_tag', 'Add a default evaluation tag'],
      ['POST', 'generate_conversations_public_token', 'Mutation.generate_environment_conversations_public_token', 'Generate a public token for the conversations widget'],
      ['PATCH', 'add_product_intent', 'Mutation.add_environment_product_intent', 'Add a product intent'],
      ['PATCH', 'complete_product_onboarding', 'Mutation.complete_environment_product_onboarding', 'Complete product onboarding'],
      ['PATCH', 'reset_token', 'Mutation.reset_environment_token', 'Reset the project API token'],
      ['PATCH', 'rotate_secret_token', 'Mutation.rotate_environment_secret_token', 'Rotate the secret token'],
      ['PATCH', 'delete_secret_token_backup', 'Mutation.delete_environment_secret_token_backup', 'Delete the backup secret token'],
    ] as const
  ).map(([method, action, field, summary]): RestRoute => ({
    method,
    path: `${environment}/${action}`,
    aliases: [`${inProject}/${action}`],
    field,
    summary,
    integerParams: ['id'],
  })),
  {
    method: 'DELETE',
    path: `${environment}/default_evaluation_tags`,
    aliases: [`${inProject}/default_evaluation_tags`],
    field: 'Mutation.remove_environment_default_evaluation_tag',
    summary: 'Remove a default evaluation tag',
    status: 204,
    integerParams: ['id'],
  },
];
