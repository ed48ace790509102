import { exceedsDepth, isObject, MAX_JSON_DEPTH, type JsonObject } from '../../shared/validation.js';
import { eventError } from './capture.errors.js';
import type { GroupUpdate, PersonUpdate } from './captured-event.js';
import { longerThan, typeName } from './json.guards.js';

export const MAX_GROUP_KEY_LENGTH = 400;

/** The event names of group updates: PostHog's, and the API document's spelling. */
export const GROUP_IDENTIFY_EVENTS = new Set(['$groupidentify', '$group_identify']);

/**
 * Distinct ids that clients send by mistake (a placeholder, a stringified null): PostHog never
 * merges persons through them. Compared case-insensitively, and also in quotes.
 */
const PLACEHOLDER_IDS = new Set(['anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false']);
const PLACEHOLDER_IDS_EXACT = new Set(['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined']);

/** Whether two persons may be merged through this distinct id. */
export function mergeable(distinctId: string): boolean {
  const bare = distinctId.trim().replace(/^(['"])(.*)\1$/, '$2');
  return bare !== '' && !PLACEHOLDER_IDS.has(bare.toLowerCase()) && !PLACEHOLDER_IDS_EXACT.has(bare);
}

/** What the event asks of its person: property changes, and a merge for identity events. */
export function personUpdate(event: string, distinctId: string, properties: JsonObject, index: number): PersonUpdate {
  return {
    set: objectProperty(properties, '$set', index),
    set_once: objectProperty(properties, '$set_once', index),
    unset: unsetKeys(properties.$unset, index),
    merge: mergeOf(event, distinctId, properties, index),
  };
}

function mergeOf(event: string, distinctId: string, properties: JsonObject, index: number): PersonUpdate['merge'] {
  let other: string | null = null;
  if (event === '$identify') {
    other = optionalId(properties.$anon_distinct_id, 'properties__$anon_distinct_id', index);
  } else if (event === '$create_alias' || event === '$merge_dangerously') {
    other = optionalId(properties.alias, 'properties__alias', index);
    if (other === null) throw eventError(index, 'properties__alias', 'This field is required.', 'required');
  } else {
    return null;
  }
  if (other === null || other === distinctId || !mergeable(other) || !mergeable(distinctId)) return null;
  return { other, dangerously: event === '$merge_dangerously' };
}

/** A group update's type, key and properties, or null for any other event. */
export function groupUpdate(event: string, properties: JsonObject, index: number): GroupUpdate | null {
  if (!GROUP_IDENTIFY_EVENTS.has(event)) return null;
  const type = properties.$group_type;
  if (type === undefined || type === null) throw eventError(index, 'properties__$group_type', 'This field is required.', 'required');
  if (typeof type !== 'string' || type.trim() === '') throw eventError(index, 'properties__$group_type', 'This field may not be blank.', 'blank');
  if (longerThan(type, MAX_GROUP_KEY_LENGTH)) {
    throw eventError(index, 'properties__$group_type', `Ensure this field has no more than ${MAX_GROUP_KEY_LENGTH} characters.`, 'max_length');
  }
  const key = optionalId(properties.$group_key, 'properties__$group_key', index);
  if (key === null) throw eventError(index, 'properties__$group_key', 'This field is required.', 'required');
  if (longerThan(key, MAX_GROUP_KEY_LENGTH)) {
    throw eventError(index, 'properties__$group_key', `Ensure this field has no more than ${MAX_GROUP_KEY_LENGTH} characters.`, 'max_length');
  }
  return { group_type: type, group_key: key, group_set: objectProperty(properties, '$group_set', index) ?? {} };
}

/**
 * An id as text, trimmed (any JSON scalar, as PostHog takes it: numbers and booleans become their
 * text); null when absent or blank. A number past 2^53 is a 400: JSON.parse has rounded it already,
 * so the id as sent is lost, and two people's ids would become one.
 */
export function optionalId(value: unknown, attr: string, index: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && !(Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER)) {
    throw eventError(index, attr, 'This number is too large to be read exactly; send ids past 2^53 as strings.', 'invalid_input');
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw eventError(index, attr, 'Not a valid string.', 'invalid_input');
  const text = String(value).trim();
  return text === '' ? null : text;
}

/** A person or group property change: an object, and (as it is queued as JSON) one nested within reason. */
function objectProperty(properties: JsonObject, key: string, index: number): JsonObject | null {
  const value = properties[key];
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw eventError(index, `properties__${key}`, `Invalid data. Expected a dictionary, but got ${typeName(value)}.`, 'invalid_input');
  if (exceedsDepth(value, MAX_JSON_DEPTH)) throw eventError(index, `properties__${key}`, `This value nests deeper than ${MAX_JSON_DEPTH} levels.`, 'too_deep');
  return value;
}

function unsetKeys(value: unknown, index: number): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.some((key) => typeof key !== 'string')) {
    throw eventError(index, 'properties__$unset', 'Expected a list of property names.', 'not_a_list');
  }
  return value as string[];
}
