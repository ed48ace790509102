import type { RestRoute } from '../route-table.js';

const base = '/environments/:project_id/llm_analytics';
const keys = `${base}/provider_keys`;

/** API document section 4.1: provider keys, key checks, model lists, summaries and text representations. */
export const llmAnalyticsRoutes: RestRoute[] = [
  { method: 'POST', path: `${base}/summarization`, field: 'Mutation.llm_summarization', largeBody: true },
  { method: 'POST', path: `${base}/summarization/batch_check`, field: 'Mutation.llm_summarization_batch_check' },
  { method: 'POST', path: `${base}/text_repr`, field: 'Mutation.llm_text_repr', largeBody: true },
  { method: 'GET', path: `${base}/models`, field: 'Query.llm_models' },
  // The document says 201; PostHog answers 200 with the verdict. The body is PostHog's, the status the document's.
  { method: 'POST', path: `${base}/provider_key_validations`, field: 'Mutation.llm_provider_key_validation', status: 201 },
  { method: 'GET', path: keys, field: 'Query.llm_provider_keys' },
  { method: 'POST', path: keys, field: 'Mutation.create_llm_provider_key', status: 201 },
  { method: 'GET', path: `${keys}/:id`, field: 'Query.llm_provider_key' },
  { method: 'PATCH', path: `${keys}/:id`, field: 'Mutation.update_llm_provider_key' },
  { method: 'DELETE', path: `${keys}/:id`, field: 'Mutation.delete_llm_provider_key', status: 204 },
  { method: 'POST', path: `${keys}/:id/validate`, field: 'Mutation.validate_llm_provider_key' },
];
