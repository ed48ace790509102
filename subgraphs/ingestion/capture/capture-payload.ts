import { ParseError, ValidationError } from '../../shared/errors.js';
import { isObject, mayHoldUnstorable, replaceUnstorable } from '../../shared/validation.js';
import type { BatchInput, EventDocuments } from './batch.rules.js';
import { jsonText, typeName } from './json.guards.js';

/**
 * A capture request's JSON text, read as PostHog's `/batch/` reads it: an envelope `{api_key |
 * token, historical_migration, sent_at, batch}`, a bare list of events (each carrying its key), or
 * one event alone. Parsed here, once; the database reads the properties from the same text.
 * Characters PostgreSQL cannot store (NUL, unpaired surrogates) become U+FFFD, as PostHog's
 * ingestion replaces them.
 */
export function readPayload(text: string): BatchInput {
  if (text.trim() === '') throw new ValidationError('No data found. Send the events as a JSON body.', null, 'no_data');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ParseError(`JSON parse error - ${(error as Error).message}`);
  }
  const sanitised = mayHoldUnstorable(text);
  if (sanitised) replaceUnstorable(body);
  // The database reads the events' properties from the text as it came, unless it had to change.
  const documents = (batch: unknown, path: EventDocuments['path']): EventDocuments =>
    sanitised ? { json: stringified(batch), path: 'array' } : { json: text, path };
  if (Array.isArray(body)) return { batch: body, documents: documents(body, 'array') };
  if (!isObject(body)) throw new ValidationError(`Invalid data. Expected a dictionary or a list, but got ${typeName(body)}.`, null);
  if (!('batch' in body)) return { batch: [body], documents: documents([body], 'single') };
  return {
    api_key: optional(body.api_key ?? body.token, 'string', 'api_key', 'Not a valid string.'),
    historical_migration: optional(body.historical_migration, 'boolean', 'historical_migration', 'Must be a valid boolean.'),
    sent_at: optional(body.sent_at, 'string', 'sent_at', 'Not a valid string.'),
    batch: body.batch as unknown[],
    documents: documents(body.batch, 'batch'),
  };
}

function optional<T>(value: unknown, type: 'string' | 'boolean', attr: string, detail: string): T | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== type) throw new ValidationError(detail, attr);
  return value as T;
}

/** The cleaned events as JSON again (a value nested tens of thousands deep is a 400). */
function stringified(batch: unknown): string {
  return jsonText(batch, () => new ValidationError('The events nest too deeply to be stored.', 'batch', 'too_deep'));
}
