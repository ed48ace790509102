import { ValidationError } from '../../subgraphs/shared/errors.js';

/** The arguments of `ingest_batch` that a capture body gives. */
export interface BatchVariables {
  api_key?: unknown;
  historical_migration?: unknown;
  sent_at?: unknown;
  batch: unknown;
}

/**
 * The shapes PostHog's `/batch/` takes: an envelope `{api_key | token, historical_migration,
 * sent_at, batch}`, a bare list of events (each carrying its key), or one event alone.
 */
export function batchVariables(body: unknown): BatchVariables {
  if (Array.isArray(body)) return { batch: body };
  if (body === null || typeof body !== 'object') {
    throw new ValidationError(`Invalid data. Expected a dictionary or a list, but got ${body === null ? 'null' : typeof body}.`, null, 'invalid');
  }
  const envelope = body as Record<string, unknown>;
  if (!('batch' in envelope)) return { batch: [envelope] };
  const variables: BatchVariables = { batch: envelope.batch };
  const apiKey = envelope.api_key ?? envelope.token;
  if (apiKey !== undefined && apiKey !== null) variables.api_key = apiKey;
  for (const field of ['historical_migration', 'sent_at'] as const) {
    if (envelope[field] !== undefined && envelope[field] !== null) variables[field] = envelope[field];
  }
  return variables;
}
