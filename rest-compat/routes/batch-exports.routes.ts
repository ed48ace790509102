import type { RestRoute } from '../route-table.js';

const base = '/environments/:project_id/batch_exports';
const projectBase = '/projects/:project_id/batch_exports';

/** One operation on its path under prefix E, and under prefix P as PostHog also serves it. */
function route(method: RestRoute['method'], path: string, field: RestRoute['field'], extra: Partial<RestRoute> = {}): RestRoute {
  return { method, path: `${base}${path}`, aliases: [`${projectBase}${path}`], field, ...extra };
}

/**
 * API document section 4.2 (pause, unpause and the INTERNAL test steps), and the operations it
 * leaves out as PostHog has them: the record, its runs and backfills. `test` and
 * `run_test_step_new` come before `:id`, which would take them for an id.
 */
export const batchExportRoutes: RestRoute[] = [
  route('GET', '', 'Query.batch_exports'),
  route('POST', '', 'Mutation.create_batch_export', { status: 201 }),
  route('GET', '/test', 'Query.batch_export_test'),
  route('POST', '/run_test_step_new', 'Mutation.run_batch_export_test_step_new'),
  route('GET', '/:id', 'Query.batch_export'),
  route('PATCH', '/:id', 'Mutation.update_batch_export'),
  route('DELETE', '/:id', 'Mutation.delete_batch_export', { status: 204 }),
  route('POST', '/:id/pause', 'Mutation.pause_batch_export'),
  route('POST', '/:id/unpause', 'Mutation.unpause_batch_export'),
  route('POST', '/:id/run_test_step', 'Mutation.run_batch_export_test_step'),
  route('GET', '/:id/runs', 'Query.batch_export_runs'),
  route('GET', '/:id/runs/:run_id', 'Query.batch_export_run'),
  route('POST', '/:id/runs/:run_id/retry', 'Mutation.retry_batch_export_run', { status: 201 }),
  route('POST', '/:id/runs/:run_id/cancel', 'Mutation.cancel_batch_export_run'),
  route('GET', '/:id/backfills', 'Query.batch_export_backfills'),
  route('POST', '/:id/backfills', 'Mutation.create_batch_export_backfill', { status: 201 }),
  route('GET', '/:id/backfills/:backfill_id', 'Query.batch_export_backfill'),
  route('POST', '/:id/backfills/:backfill_id/cancel', 'Mutation.cancel_batch_export_backfill'),
];
