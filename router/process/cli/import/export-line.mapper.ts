/** An event as `/batch/` takes it. */
export type CaptureEvent = Record<string, unknown>;

/** PostHog's rule for a historical import (API document, 4.9 rule 2). */
const MIN_AGE_MS = 48 * 3_600_000;
/** An event to send, with the distinct id it is sent for (the importer keeps each one's events in order). */
export interface ExportedEvent {
  event: CaptureEvent;
  distinctId: string;
}

/** Fields of PostHog's export that are the platform's to set, not the event's. */
const NOT_CARRIED = ['team_id', 'project_id', 'person_id', 'person_properties', 'created_at', 'inserted_at', '_inserted_at', 'api_key', 'token', '$token'];

/**
 * One line of a JSON-lines export (PostHog's: `uuid`, `event`, `distinct_id`, `timestamp`,
 * `properties` (an object, or its JSON text), `set`, `set_once`, `elements_chain`, …; or capture's
 * own shape) as the event to send, or why it cannot be sent. What the server would refuse anyway
 * is caught here, so a bad line costs no round trip; the server's word remains final.
 */
export function exportedEvent(text: string, now: number): ExportedEvent | { reason: string } {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch (error) {
    return { reason: `not JSON: ${(error as Error).message}` };
  }
  if (line === null || typeof line !== 'object' || Array.isArray(line)) return { reason: 'not a JSON object' };
  const { set, set_once, elements_chain, properties, ...rest } = line as Record<string, unknown>;
  const event: CaptureEvent = Object.fromEntries(Object.entries(rest).filter(([key]) => !NOT_CARRIED.includes(key)));
  // The export may hold these objects as JSON text (ClickHouse's String columns).
  const objects = { properties: exportedObject(properties), set: exportedObject(set), set_once: exportedObject(set_once) };
  const wrong = Object.entries(objects).find(([, value]) => value === WRONG);
  if (wrong) return { reason: `${wrong[0]} is not an object` };
  const { properties: props, set: setProps, set_once: setOnceProps } = objects as Record<string, Record<string, unknown> | undefined>;
  event.properties = { ...props };
  if (typeof elements_chain === 'string' && elements_chain !== '') (event.properties as Record<string, unknown>).$elements_chain = elements_chain;
  if (setProps) event.$set = { ...(event.$set as object | undefined), ...setProps };
  if (setOnceProps) event.$set_once = { ...(event.$set_once as object | undefined), ...setOnceProps };
  return checked(event, now);
}

function checked(event: CaptureEvent, now: number): ExportedEvent | { reason: string } {
  if (typeof event.event !== 'string' || event.event === '') return { reason: 'no event name' };
  const distinctId = event.distinct_id ?? event.$distinct_id ?? (event.properties as Record<string, unknown>).distinct_id;
  if (distinctId === undefined || distinctId === null || String(distinctId).trim() === '') return { reason: 'no distinct_id' };
  if (typeof event.timestamp !== 'string') return { reason: 'no timestamp' };
  // Whether the time is valid is the server's to say (its reading is ISO 8601's, stricter than
  // Date.parse); a time plainly too recent needs no round trip.
  const time = Date.parse(/[zZ]|[+-]\d\d(:?\d\d)?$/.test(event.timestamp) ? event.timestamp : `${event.timestamp.replace(' ', 'T')}Z`);
  if (!Number.isNaN(time) && now - time < MIN_AGE_MS) return { reason: 'timestamp less than 48 hours old: send recent events without historical_migration' };
  return { event, distinctId: String(distinctId) };
}

const WRONG = Symbol('not an object');

/** An object of the export, given as itself or as its JSON text; absent (or empty text) is undefined. */
function exportedObject(value: unknown): Record<string, unknown> | undefined | typeof WRONG {
  let object = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return undefined;
    try {
      object = JSON.parse(value);
    } catch {
      return WRONG;
    }
  }
  if (object === undefined || object === null) return undefined;
  return typeof object === 'object' && !Array.isArray(object) ? (object as Record<string, unknown>) : WRONG;
}
