import { createHash } from 'node:crypto';
import { isObject, isUuid, type JsonObject } from '../../shared/validation.js';
import { eventError } from './capture.errors.js';
import type { CapturedEvent } from './captured-event.js';
import { formatEventTime, parseIsoTime, storedTime, type EventTime } from './event-time.rules.js';
import { jsonText, longerThan, typeName } from './json.guards.js';
import type { SentTexts } from './sent-texts.js';
import { oversize, storedProperties, TOP_LEVEL_SETS } from './stored-properties.js';
import { groupUpdate, MAX_GROUP_KEY_LENGTH, optionalId, personUpdate } from './profile.rules.js';

export const MAX_DISTINCT_ID_LENGTH = 200;
export const MAX_EVENT_NAME_LENGTH = 200;
/** The API document's rule for historical imports. */
export const HISTORICAL_MIN_AGE_MS = 48 * 3_600_000;

/** What every event of a batch is read against. */
export interface BatchContext {
  historical_migration: boolean;
  sent_at: EventTime | null;
  /** When the batch arrived, in milliseconds. */
  now: number;
}

/**
 * One event of a batch, checked and put in the form it is stored in, or a 400 naming its index and
 * field. `distinct_id` may sit at the top level (PostHog's SDKs), as `$distinct_id`, or in
 * `properties` (the API document); top-level `$set` and `$set_once` join those in `properties`.
 * `sent` holds the texts of its properties and top-level sets as received, when it came as JSON
 * text: they are stored from those (`storedProperties`).
 */
export function readEvent(raw: unknown, index: number, context: BatchContext, sent: SentTexts | null = null): CapturedEvent {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw eventError(index, null, `Invalid data. Expected a dictionary, but got ${typeName(raw)}.`, 'invalid_input');
  }
  const input = raw as JsonObject;
  const event = eventName(input.event, index);
  const properties = eventProperties(input, index);
  let json: string | undefined;
  const compact = () => (json ??= propertiesText(properties, index));
  const stored = storedProperties(input, sent, compact);
  const distinctId = distinctIdOf(input, properties, index);
  const given = eventTime(input.timestamp, index, context);
  // A historical import replays the times it was given (PostHog's advice is to send no sent_at
  // with one): the import's own clock says nothing of the clocks that dated its events, and a skew
  // could move an event under the 48 hours its timestamp passed.
  const skewFrom = context.historical_migration || properties.$ignore_sent_at === true ? null : context.sent_at;
  const time = storedTime(given, skewFrom, context.now);
  const group = groupUpdate(event, properties, index);
  const groups = properties.$groups;
  if (groups !== undefined && !isObject(groups)) throw eventError(index, 'properties__$groups', 'Expected a dictionary of group keys by group type.', 'invalid_input');
  const groupTypes = Object.keys(groups ?? {}).filter((type) => type.trim() !== '');
  if (groupTypes.some((type) => longerThan(type, MAX_GROUP_KEY_LENGTH))) {
    throw eventError(index, 'properties__$groups', `Ensure group type names have no more than ${MAX_GROUP_KEY_LENGTH} characters.`, 'max_length');
  }
  const uuid = eventUuid(input.uuid, index);
  return {
    index,
    uuid: uuid ?? '',
    derived_from: uuid ? null : contentKey(distinctId, event, formatEventTime(given), compact()),
    event,
    distinct_id: distinctId,
    timestamp: formatEventTime(time),
    time: time.ms,
    properties: stored,
    oversize: oversize(stored, compact),
    session_id: typeof properties.$session_id === 'string' ? properties.$session_id : null,
    person: properties.$process_person_profile === false ? null : personUpdate(event, distinctId, properties, index),
    group,
    group_types: group ? [...new Set([...groupTypes, group.group_type])] : groupTypes,
  };
}

function eventName(value: unknown, index: number): string {
  if (value === undefined || value === null) throw eventError(index, 'event', 'This field is required.', 'required');
  if (typeof value !== 'string') throw eventError(index, 'event', 'Not a valid string.', 'invalid_input');
  if (value.trim() === '') throw eventError(index, 'event', 'This field may not be blank.', 'blank');
  if (longerThan(value, MAX_EVENT_NAME_LENGTH)) {
    throw eventError(index, 'event', `Ensure this field has no more than ${MAX_EVENT_NAME_LENGTH} characters.`, 'max_length');
  }
  return value;
}

/**
 * The event's properties, with top-level `$set` / `$set_once` merged into theirs (PostHog's
 * normalisation). The parsed request is this code's own: its objects are used, not copied.
 */
function eventProperties(input: JsonObject, index: number): JsonObject {
  if (input.properties !== undefined && input.properties !== null && !isObject(input.properties)) {
    throw eventError(index, 'properties', `Invalid data. Expected a dictionary, but got ${typeName(input.properties)}.`, 'invalid_input');
  }
  const properties = (input.properties as JsonObject | undefined) ?? {};
  for (const key of TOP_LEVEL_SETS) {
    if (input[key] === undefined || input[key] === null) continue;
    if (!isObject(input[key])) throw eventError(index, key, `Invalid data. Expected a dictionary, but got ${typeName(input[key])}.`, 'invalid_input');
    const inner = properties[key];
    properties[key] = { ...(isObject(inner) ? inner : {}), ...input[key] };
  }
  return properties;
}

function distinctIdOf(input: JsonObject, properties: JsonObject, index: number): string {
  const [field, value] = (
    [
      ['distinct_id', input.distinct_id],
      ['$distinct_id', input.$distinct_id],
      ['properties__distinct_id', properties.distinct_id],
    ] as const
  ).find(([, candidate]) => candidate !== undefined && candidate !== null) ?? ['distinct_id', undefined];
  if (value === undefined) throw eventError(index, 'distinct_id', 'This field is required.', 'required');
  const text = optionalId(value, field, index);
  if (text === null) throw eventError(index, field, 'This field may not be blank.', 'blank');
  if (longerThan(text, MAX_DISTINCT_ID_LENGTH)) {
    throw eventError(index, field, `Ensure this field has no more than ${MAX_DISTINCT_ID_LENGTH} characters.`, 'max_length');
  }
  return text;
}

function eventTime(value: unknown, index: number, context: BatchContext): EventTime {
  if (value === undefined || value === null || value === '') throw eventError(index, 'timestamp', 'This field is required.', 'required');
  const time = typeof value === 'string' ? parseIsoTime(value) : null;
  if (!time) {
    throw eventError(index, 'timestamp', 'Datetime has wrong format. Use ISO 8601 (e.g. 2025-11-24T12:34:56Z), from 1970 on.', 'invalid_input');
  }
  if (context.historical_migration && context.now - time.ms < HISTORICAL_MIN_AGE_MS) {
    const hours = Math.floor((context.now - time.ms) / 3_600_000);
    const age = time.ms > context.now ? 'this one is dated in the future' : `this one is ${hours} hours old`;
    throw eventError(
      index,
      'timestamp',
      `A historical migration takes events dated at least 48 hours before the import; ${age}. Send recent events without historical_migration.`,
      'too_recent',
    );
  }
  return time;
}

function eventUuid(value: unknown, index: number): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || !isUuid(value)) throw eventError(index, 'uuid', 'Must be a valid UUID.', 'invalid_input');
  return value.toLowerCase();
}

/**
 * Person, name, time and a hash of the properties as JSON writes them (not as sent: a retry that
 * spaces them otherwise is the same event): with the environment, what a derived uuid comes from.
 */
function contentKey(distinctId: string, event: string, timestamp: string, properties: string): string {
  return `${distinctId}\n${event}\n${timestamp}\n${createHash('sha256').update(properties).digest('hex')}`;
}

function propertiesText(properties: JsonObject, index: number): string {
  return jsonText(properties, () => eventError(index, 'properties', 'The properties nest too deeply to be stored.', 'too_deep'));
}
