/**
 * Narrowing helpers for the untyped JSON the formatters walk. Look-ups use own properties only, so keys such as
 * `constructor` or `__proto__` in user data read as plain data, never as inherited members.
 */

import { isObject, type JsonObject } from '../../shared/validation.js';

export { isObject, type JsonObject };

/** `key in obj` of Python. */
export function has(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(obj, key) && obj[key] !== undefined;
}

/** `obj.get(key)` of Python (undefined when absent). */
export function own(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** `obj.get(key, fallback)` of Python: the fallback only when the key is absent, not when it holds null. */
export function getOr(obj: JsonObject, key: string, fallback: unknown): unknown {
  return has(obj, key) ? obj[key] : fallback;
}

/** The object itself, or an empty one for anything else (`props = event.get("properties", {})` made safe). */
export function asObject(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

/** Python truthiness: None, False, 0, "", [] and {} are false. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'bigint') return value !== 0n;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') {
    for (const key in value) if (Object.hasOwn(value, key)) return true;
    return false;
  }
  return true;
}

/** Python's `a or b or ...`: the first truthy operand, else the last one. */
export function firstTruthy(...values: unknown[]): unknown {
  for (const value of values) if (truthy(value)) return value;
  return values[values.length - 1];
}

/** Appends without spreading, so that arrays of any length are safe (spread arguments overflow the stack). */
export function pushAll<T>(target: T[], source: readonly T[]): void {
  for (const item of source) target.push(item);
}
