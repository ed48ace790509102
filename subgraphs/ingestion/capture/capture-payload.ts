import { ParseError, ValidationError } from '../../shared/errors.js';
import { isObject, mayHoldUnstorable, replaceUnstorable } from '../../shared/validation.js';
import type { BatchInput } from './batch.rules.js';
import { typeName } from './json.guards.js';
import { sentTexts, type EventsPath } from './sent-texts.js';

/**
 * A capture request's JSON text, read as PostHog's `/batch/` reads it: an envelope `{api_key |
 * token, historical_migration, sent_at, batch}`, a bare list of events (each carrying its key), or
 * one event alone. Parsed here, once; each event's properties are stored as their text came
 * (`sentTexts`).
 * Characters PostgreSQL cannot store (NUL, unpaired surrogates) become U+FFFD, as PostHog's
 * ingestion replaces them; properties are then stored as JSON of the cleaned values.
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
  const texts = (path: EventsPath): Pick<BatchInput, 'sent_texts'> => (sanitised ? {} : { sent_texts: sentTexts(text, path) });
  if (Array.isArray(body)) return { batch: body, ...texts('array') };
  if (!isObject(body)) throw new ValidationError(`Invalid data. Expected a dictionary or a list, but got ${typeName(body)}.`, null);
  if (!('batch' in body)) return { batch: [body], ...texts('single') };
  return {
    api_key: optional(body.api_key ?? body.token, 'string', 'api_key', 'Not a valid string.'),
    historical_migration: optional(body.historical_migration, 'boolean', 'historical_migration', 'Must be a valid boolean.'),
    sent_at: optional(body.sent_at, 'string', 'sent_at', 'Not a valid string.'),
    batch: body.batch as unknown[],
    ...texts('batch'),
  };
}

function optional<T>(value: unknown, type: 'string' | 'boolean', attr: string, detail: string): T | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== type) throw new ValidationError(detail, attr);
  return value as T;
}
