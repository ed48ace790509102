import type { RestRoute } from '../route-table.js';

const projects = '/organizations/:organization_id/projects';

/** API document section 4.7 (the record and settings operations; the actions follow). */
export const projectRoutes: RestRoute[] = [
  { method: 'GET', path: projects, field: 'Query.projects' },
  { method: 'POST', path: projects, field: 'Mutation.create_project', status: 201 },
  { method: 'GET', path: `${projects}/:id`, field: 'Query.project', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id`, field: 'Mutation.update_project', integerParams: ['id'] },
  { method: 'GET', path: `${projects}/:id/activity`, field: 'Query.project_activity', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/reset_token`, field: 'Mutation.reset_project_token', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/rotate_secret_token`, field: 'Mutation.rotate_project_secret_token', integerParams: ['id'] },
  { method: 'PATCH', path: `${projects}/:id/delete_secret_token_backup`, field: 'Mutation.delete_project_secret_token_backup', integerParams: ['id'] },
];

/** Section 4.8: reading and changing an environment's settings (users need them beside the actions). */
export const environmentRoutes: RestRoute[] = [
  { method: 'GET', path: '/environments/:id', field: 'Query.environment', integerParams: ['id'] },
  { method: 'PATCH', path: '/environments/:id', field: 'Mutation.update_environment', integerParams: ['id'] },
  { method: 'GET', path: '/projects/:project_id/environments/:id/settings_as_of', field: 'Query.environment_settings_as_of', integerParams: ['id'] },
  { method: 'PATCH', path: '/projects/:project_id/environments/:id/reset_token', field: 'Mutation.reset_environment_token', integerParams: ['id'] },
  { method: 'PATCH', path: '/projects/:project_id/environments/:id/rotate_secret_token', field: 'Mutation.rotate_environment_secret_token', integerParams: ['id'] },
  {
    method: 'PATCH',
    path: '/projects/:project_id/environments/:id/delete_secret_token_backup',
    field: 'Mutation.delete_environment_secret_token_backup',
    integerParams: ['id'],
  },
];
