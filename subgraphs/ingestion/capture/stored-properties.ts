import { isObject, type JsonObject } from '../../shared/validation.js';
import { objectMembers, type SentTexts } from './sent-texts.js';

/** PostHog's capture drops events of about a megabyte; this platform refuses their batch. */
export const MAX_EVENT_PROPERTIES_BYTES = 1_048_576;

/** Top-level keys whose objects join the same keys in `properties` (PostHog's normalisation). */
export const TOP_LEVEL_SETS = ['$set', '$set_once'] as const;

/**
 * An event's properties as stored: their text as sent when the event came as JSON text, else
 * `compact` (JSON of the parsed values), so that every digit sent is kept (a number past a double's
 * range is refused, not stored as null). The top-level sets are merged into the properties' own,
 * the sent member replacing the one of the same key (PostHog's merge); the merge writes no key
 * twice, as a store that keeps repeated keys (ClickHouse's JSON functions read the first) would
 * answer the replaced value.
 */
export function storedProperties(input: JsonObject, sent: SentTexts | null, compact: () => string): string {
  if (!sent) return compact();
  const base = isObject(input.properties) ? sent.properties! : '{}';
  const sets = TOP_LEVEL_SETS.filter((key) => isObject(input[key]));
  if (sets.length === 0) return base;
  const merged = objectMembers(base);
  for (const key of sets) {
    const own = merged.get(key);
    merged.delete(key);
    merged.set(key, objectText(new Map([...objectMembers(own?.startsWith('{') ? own : '{}'), ...objectMembers(sent[key]!)])));
  }
  return objectText(merged);
}

/** An object's text of its members' texts. */
function objectText(members: Map<string, string>): string {
  return `{${[...members].map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
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
