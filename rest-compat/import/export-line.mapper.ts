/** An event as `/batch/` takes it. */
export type CaptureEvent = Record<string, unknown>;

/** PostHog's rule for a historical import (API document, 4.9 rule 2). */
const MIN_AGE_MS = 48 * 3_600_000;
/** Fields of PostHog's export that are the platform's to set, not the event's. */
const NOT_CARRIED = ['team_id', 'project_id', 'person_id', 'person_properties', 'created_at', 'inserted_at', '_inserted_at', 'api_key', 'token', '$token'];

/**
 * One line of a JSON-lines export (PostHog's: `uuid`, `event`, `distinct_id`, `timestamp`,
 * `properties` (an object, or its JSON text), `set`, `set_once`, `elements_chain`, …; or capture's
 * own shape) as the event to send, or why it cannot be sent. What the server would refuse anyway
 * is caught here, so a bad line costs no round trip; the server's word remains final.
 */
export function exportedEvent(text: string, now: number): { event: CaptureEvent } | { reason: string } {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch (error) {
    return { reason: `not JSON: ${(error as Error).message}` };
  }
  if (line === null || typeof line !== 'object' || Array.isArray(line)) return { reason: 'not a JSON object' };
  const { set, set_once, elements_chain, properties, ...rest } = line as Record<string, unknown>;
  const event: CaptureEvent = Object.fromEntries(Object.entries(rest).filter(([key]) => !NOT_CARRIED.includes(key)));
  const props = typeof properties === 'string' ? parsedObject(properties) : properties;
  if (props !== undefined && props !== null && (typeof props !== 'object' || Array.isArray(props))) return { reason: 'properties is not an object' };
  event.properties = { ...(props as Record<string, unknown> | undefined) };
  if (typeof elements_chain === 'string' && elements_chain !== '') (event.properties as Record<string, unknown>).$elements_chain = elements_chain;
  if (set && typeof set === 'object') event.$set = { ...(event.$set as object | undefined), ...set };
  if (set_once && typeof set_once === 'object') event.$set_once = { ...(event.$set_once as object | undefined), ...set_once };
  return checked(event, now);
}

function checked(event: CaptureEvent, now: number): { event: CaptureEvent } | { reason: string } {
  if (typeof event.event !== 'string' || event.event === '') return { reason: 'no event name' };
  const distinctId = event.distinct_id ?? event.$distinct_id ?? (event.properties as Record<string, unknown>).distinct_id;
  if (distinctId === undefined || distinctId === null || String(distinctId).trim() === '') return { reason: 'no distinct_id' };
  if (typeof event.timestamp !== 'string') return { reason: 'no timestamp' };
  // Whether the time is valid is the server's to say (its reading is ISO 8601's, stricter than
  // Date.parse); a time plainly too recent needs no round trip.
  const time = Date.parse(/[zZ]|[+-]\d\d(:?\d\d)?$/.test(event.timestamp) ? event.timestamp : `${event.timestamp.replace(' ', 'T')}Z`);
  if (!Number.isNaN(time) && now - time < MIN_AGE_MS) return { reason: 'timestamp less than 48 hours old: send recent events without historical_migration' };
  return { event };
}

function parsedObject(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
