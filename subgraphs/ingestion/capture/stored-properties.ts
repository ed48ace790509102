import { isObject, type JsonObject } from '../../shared/validation.js';
import { memberText, type SentTexts } from './sent-texts.js';

/** PostHog's capture drops events of about a megabyte; this platform refuses their batch. */
export const MAX_EVENT_PROPERTIES_BYTES = 1_048_576;

/** Top-level keys whose objects join the same keys in `properties` (PostHog's normalisation). */
export const TOP_LEVEL_SETS = ['$set', '$set_once'] as const;

/**
 * An event's properties as stored: their text as sent when the event came as JSON text, else
 * `compact` (JSON of the parsed values). The top-level sets are merged into the properties' own
 * as members written after those they replace: jsonb keeps the last of repeated keys, so the stored
 * value is PostHog's merge, with every digit sent (a number past a double's range is refused, not
 * stored as null).
 */
export function storedProperties(input: JsonObject, sent: SentTexts | null, compact: () => string): string {
  if (!sent) return compact();
  const base = isObject(input.properties) ? sent.properties! : '{}';
  const sets = TOP_LEVEL_SETS.filter((key) => isObject(input[key])).map((key) => {
    const own = memberText(base, key);
    return `"${key}":{${members(own?.startsWith('{') ? own : '{}', sent[key]!)}}`;
  });
  return sets.length === 0 ? base : `{${[members(base), ...sets].filter((part) => part !== '').join(',')}}`;
}

/** The members of objects' texts, one list. */
function members(...objects: string[]): string {
  return objects
    .map((object) => object.slice(1, -1).trim())
    .filter((inner) => inner !== '')
    .join(',');
}

/**
 * The UTF-8 size of the properties as compact JSON (PostHog's measure), when it passes
 * MAX_EVENT_PROPERTIES_BYTES; null otherwise. Only a stored text that may pass it is measured
 * again compact (whitespace and `\u` escapes as sent do not count).
 */
export function oversize(stored: string, compact: () => string): number | null {
  if (stored.length * 3 <= MAX_EVENT_PROPERTIES_BYTES || Buffer.byteLength(stored) <= MAX_EVENT_PROPERTIES_BYTES) return null;
  const bytes = Buffer.byteLength(compact());
  return bytes > MAX_EVENT_PROPERTIES_BYTES ? bytes : null;
}
