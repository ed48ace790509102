import type { RestRoute } from '../route-table.js';

const base = '/environments/:project_id/batch_exports';
const projectBase = '/projects/:project_id/batch_exports';

/** One operation on its path under prefix E, and under prefix P as PostHog also serves it. */
function route(method: RestRoute['method'], path: string, field: RestRoute['field'], summary: string, extra: Partial<RestRoute> = {}): RestRoute {
  return { method, path: `${base}${path}`, aliases: [`${projectBase}${path}`], field, summary, ...extra };
}

/**
 * API document section 4.2 (pause, unpause and the INTERNAL test steps), and the operations it
 * leaves out as PostHog has them: the record, its runs and backfills. `test` and
 * `run_test_step_new` come before `:id`, which would take them for an id.
 */
export const batchExportRoutes: RestRoute[] = [
  route('GET', '', 'Query.batch_exports', 'List batch exports'),
  route('POST', '', 'Mutation.create_batch_export', 'Create a batch export', { status: 201 }),
  route('GET', '/test', 'Query.batch_export_test', 'Describe the test steps of a destination (internal)'),
  route('POST', '/run_test_step_new', 'Mutation.run_batch_export_test_step_new', 'Run a test step for a new batch export (internal)'),
  route('GET', '/:id', 'Query.batch_export', 'Retrieve a batch export'),
  route('PATCH', '/:id', 'Mutation.update_batch_export', 'Update a batch export'),
  route('DELETE', '/:id', 'Mutation.delete_batch_export', 'Delete a batch export', { status: 204 }),
  route('POST', '/:id/pause', 'Mutation.pause_batch_export', 'Pause a batch export'),
  route('POST', '/:id/unpause', 'Mutation.unpause_batch_export', 'Unpause a batch export'),
  route('POST', '/:id/run_test_step', 'Mutation.run_batch_export_test_step', 'Run a test step of a batch export (internal)'),
  route('GET', '/:id/runs', 'Query.batch_export_runs', "List a batch export's runs"),
  route('GET', '/:id/runs/:run_id', 'Query.batch_export_run', 'Retrieve a batch export run'),
  route('POST', '/:id/runs/:run_id/retry', 'Mutation.retry_batch_export_run', 'Retry a batch export run', { status: 201 }),
  route('POST', '/:id/runs/:run_id/cancel', 'Mutation.cancel_batch_export_run', 'Cancel a batch export run'),
  route('GET', '/:id/backfills', 'Query.batch_export_backfills', "List a batch export's backfills"),
  route('POST', '/:id/backfills', 'Mutation.create_batch_export_backfill', 'Create a backfill of a batch export', { status: 201 }),
  route('GET', '/:id/backfills/:backfill_id', 'Query.batch_export_backfill', 'Retrieve a batch export backfill'),
  route('POST', '/:id/backfills/:backfill_id/cancel', 'Mutation.cancel_batch_export_backfill', 'Cancel a batch export backfill'),
];
