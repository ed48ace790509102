/**
 * The document's tags, named as PostHog's schema names them (see `tagOf`), `capture` as PostHog's
 * documentation names `/batch/`. Every operation has one; a tag without operations is an error.
 */
export const TAGS: { name: string; description: string }[] = [
  { name: 'batch_exports', description: 'Batch exports: scheduled exports of events to a destination, their runs and backfills.' },
  { name: 'capture', description: 'Event ingestion (`/batch/`), authenticated by the project API key in the body.' },
  { name: 'conversations', description: 'Conversations with the assistant, streamed or not, and their message queues.' },
  { name: 'customer_profile_configs', description: 'Customer profile configurations.' },
  { name: 'endpoints', description: 'Saved endpoints: named, versioned queries, run over HTTP.' },
  { name: 'environments', description: 'Environments: settings, tokens and onboarding.' },
  { name: 'events', description: 'Ingested events.' },
  { name: 'groups', description: 'Groups of ingested events.' },
  { name: 'llm_analytics', description: 'LLM analytics: provider keys, models, summaries and text representations.' },
  { name: 'members', description: 'Members of an organization.' },
  { name: 'personal_api_keys', description: "The caller's personal API keys." },
  { name: 'persons', description: 'Persons of ingested events.' },
  { name: 'projects', description: 'Projects of an organization: settings, tokens and onboarding.' },
  { name: 'users', description: 'User accounts: profile, email verification and two-factor authentication.' },
];
