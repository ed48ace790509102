import type { EntityManager } from '@mikro-orm/postgresql';
import { tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { grants, type Scope } from '../../shared/auth/scopes.js';
import { AppError } from '../../shared/errors.js';
import { ingestionFacade } from '../../ingestion/facade.js';
import { projectsFacade } from '../../projects/facade.js';

/** Where a run's tools read: the conversation's environment, with the scopes of the key that started the run. */
export interface ToolScope {
  em: EntityManager;
  environmentId: number;
  scopes: readonly string[];
}

const timeRange = {
  event: z.string().max(400).optional().describe('Only events with this name (e.g. "$pageview").'),
  after: z.string().optional().describe('ISO 8601 time; events at or after it.'),
  before: z.string().optional().describe('ISO 8601 time; events before it.'),
};

/**
 * The assistant's tools over the platform's own data. Each reads only what the key that started
 * the run may read (PostHog's scopes for the same data through the API); a refusal or a bad
 * argument is answered to the model as `{error}`, so that it can explain or try again.
 */
export function assistantTools(scope: ToolScope): ToolSet {
  const { em, environmentId } = scope;
  return {
    count_events: tool({
      description: 'Counts the events of this project, optionally of one event name and within a time range.',
      inputSchema: z.object(timeRange),
      execute: (input) => guarded(scope, 'query:read', async () => ({ count: await ingestionFacade.countEvents(em, environmentId, input) })),
    }),
    event_trend: tool({
      description: 'Counts events per hour, day, week or month (UTC), oldest first; periods without events are left out.',
      inputSchema: z.object({ ...timeRange, interval: z.enum(['hour', 'day', 'week', 'month']).default('day') }),
      execute: ({ interval, ...filter }) =>
        guarded(scope, 'query:read', async () => ({ interval, series: await ingestionFacade.eventTrend(em, environmentId, filter, interval) })),
    }),
    list_persons: tool({
      description: 'Lists the persons of this project, newest first, optionally those whose property values or distinct ids contain `search`.',
      inputSchema: z.object({ search: z.string().max(200).optional(), limit: z.number().int().min(1).max(100).default(10) }),
      execute: (input) =>
        guarded(scope, 'person:read', async () => {
          const { count, results } = await ingestionFacade.listPersons(em, environmentId, input);
          return { count, results: results.map(({ name, distinct_ids, properties, created_at }) => ({ name, distinct_ids, properties, created_at })) };
        }),
    }),
    project_settings: tool({
      description: "Reads this project's name and settings (time zone, data settings, recording and autocapture options, …).",
      inputSchema: z.object({}),
      execute: () => guarded(scope, 'project:read', async () => (await projectsFacade.environmentOverview(em, environmentId)) ?? { error: 'The project no longer exists.' }),
    }),
  };
}

async function guarded(scope: ToolScope, required: Scope, read: () => Promise<unknown>): Promise<unknown> {
  if (!grants(scope.scopes, required)) return { error: `The API key that asked lacks the scope ${required}, so this tool cannot read that data.` };
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return { error: error.message, field: error.extensions.attr ?? null };
    throw error;
  }
}
