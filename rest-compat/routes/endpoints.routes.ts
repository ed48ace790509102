import type { RestRoute } from '../route-table.js';

const base = '/environments/:project_id/endpoints';
const projectBase = '/projects/:project_id/endpoints';

/** One operation of API document section 4.5, on its path under prefix E (and P as an alias). */
function route(method: RestRoute['method'], path: string, field: RestRoute['field'], summary: string, extra: Partial<RestRoute> = {}): RestRoute {
  return { method, path: `${base}${path}`, aliases: [`${projectBase}${path}`], field, summary, ...extra };
}

/**
 * API document section 4.5 under both prefixes. `last_execution_times` comes before `:name` so that
 * its POST is not taken for an endpoint's name (which only GET, PATCH and DELETE take anyway).
 */
export const endpointRoutes: RestRoute[] = [
  route('POST', '/last_execution_times', 'Query.endpoint_last_execution_times', 'Last execution times of the named endpoints (past 6 months)'),
  route('GET', '', 'Query.endpoints', 'List saved endpoints'),
  route('POST', '', 'Mutation.create_endpoint', 'Create a saved endpoint', { status: 201 }),
  route('GET', '/:name', 'Query.endpoint', 'Retrieve a saved endpoint'),
  route('PATCH', '/:name', 'Mutation.update_endpoint', 'Update a saved endpoint'),
  route('DELETE', '/:name', 'Mutation.delete_endpoint', 'Delete a saved endpoint and clean up its materialized query', { status: 204 }),
  route('GET', '/:name/materialization_status', 'Query.endpoint_materialization_status', "Retrieve an endpoint's materialization status"),
  route('GET', '/:name/openapi.json', 'Query.endpoint_openapi', 'An OpenAPI 3.0 description of the endpoint, to generate typed clients'),
  route('GET', '/:name/run', 'Query.endpoint_run', 'Run an endpoint (query string)', { ownLimit: true }),
  route('POST', '/:name/run', 'Mutation.run_endpoint', 'Run an endpoint, with materialization if enabled'),
  route('GET', '/:name/versions', 'Query.endpoint_versions', "List an endpoint's versions"),
  route('GET', '/:name/versions/:version_number', 'Query.endpoint_version', 'Retrieve one version of an endpoint', { integerParams: ['version_number'] }),
];
