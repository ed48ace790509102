import type { RestRoute } from '../route-table.js';

const base = '/environments/:project_id/endpoints';
const projectBase = '/projects/:project_id/endpoints';

/** One operation of API document section 4.5, on its path under prefix E (and P as an alias). */
function route(method: RestRoute['method'], path: string, field: RestRoute['field'], extra: Partial<RestRoute> = {}): RestRoute {
  return { method, path: `${base}${path}`, aliases: [`${projectBase}${path}`], field, ...extra };
}

/**
 * API document section 4.5 under both prefixes. `last_execution_times` comes before `:name` so that
 * its POST is not taken for an endpoint's name (which only GET, PATCH and DELETE take anyway).
 */
export const endpointRoutes: RestRoute[] = [
  route('POST', '/last_execution_times', 'Query.endpoint_last_execution_times'),
  route('GET', '', 'Query.endpoints'),
  route('POST', '', 'Mutation.create_endpoint', { status: 201 }),
  route('GET', '/:name', 'Query.endpoint'),
  route('PATCH', '/:name', 'Mutation.update_endpoint'),
  route('DELETE', '/:name', 'Mutation.delete_endpoint', { status: 204 }),
  route('GET', '/:name/materialization_status', 'Query.endpoint_materialization_status'),
  route('GET', '/:name/openapi.json', 'Query.endpoint_openapi'),
  route('GET', '/:name/run', 'Query.endpoint_run', { ownLimit: true }),
  route('POST', '/:name/run', 'Mutation.run_endpoint'),
  route('GET', '/:name/versions', 'Query.endpoint_versions'),
  route('GET', '/:name/versions/:version_number', 'Query.endpoint_version', { integerParams: ['version_number'] }),
];
