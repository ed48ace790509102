import type { RestRoute } from '../route-table.js';

const base = '/environments/:project_id/llm_analytics';
const keys = `${base}/provider_keys`;

/** API document section 4.1: provider keys, key checks, model lists, summaries and text representations. */
export const llmAnalyticsRoutes: RestRoute[] = [
  { method: 'POST', path: `${base}/summarization`, field: 'Mutation.llm_summarization', largeBody: true, summary: 'Summarize a trace or event with line references' },
  { method: 'POST', path: `${base}/summarization/batch_check`, field: 'Mutation.llm_summarization_batch_check', summary: 'Which traces already have a cached summary' },
  { method: 'POST', path: `${base}/text_repr`, field: 'Mutation.llm_text_repr', largeBody: true, summary: 'Text representation of an LLM event or trace' },
  { method: 'GET', path: `${base}/models`, field: 'Query.llm_models', summary: 'List available models for a provider' },
  // The document says 201; PostHog answers 200 with the verdict. The body is PostHog's, the status the document's.
  { method: 'POST', path: `${base}/provider_key_validations`, field: 'Mutation.llm_provider_key_validation', status: 201, summary: 'Validate a provider API key without storing it' },
  { method: 'GET', path: keys, field: 'Query.llm_provider_keys', summary: 'List provider keys' },
  { method: 'POST', path: keys, field: 'Mutation.create_llm_provider_key', status: 201, summary: 'Create a provider key' },
  { method: 'GET', path: `${keys}/:id`, field: 'Query.llm_provider_key', summary: 'Retrieve a provider key' },
  { method: 'PATCH', path: `${keys}/:id`, field: 'Mutation.update_llm_provider_key', summary: 'Update a provider key' },
  { method: 'DELETE', path: `${keys}/:id`, field: 'Mutation.delete_llm_provider_key', status: 204, summary: 'Delete a provider key' },
  { method: 'POST', path: `${keys}/:id/validate`, field: 'Mutation.validate_llm_provider_key', summary: 'Validate a stored provider key again' },
];
