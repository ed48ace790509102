import { ValidationError } from './errors.js';
/** A parsed JSON object. */
export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id can be a UUID; anything else is "not found" without asking the database. */
/** Python's `type(value).__name__` for a JSON value, as DRF's messages quote it ("… but got type \"str\"."). */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Size of a JSON value as stored, in bytes. */
export function jsonSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

/** How deeply JSON may nest in any request: far beyond real layouts, well within a stack's reach. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a parsed JSON value nests deeper than `max` levels. Iterative, so that a hostile value
 * nested a million levels deep cannot overflow the stack while being checked. Strings are not read:
 * scanning a 2 MB one is real work (timed in test/bench/RESULTS.md) for a question about shape.
 */
export function exceedsDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  return walkJson(value, max, () => null) === 'too_deep';
}

/** Why a JSON value cannot be stored as it is. */
export type JsonProblem = 'too_deep' | 'nul_character' | 'unpaired_surrogate';

/**
 * What makes a JSON value unstorable, if anything: nesting deeper than `max`, a NUL character or
 * an unpaired UTF-16 surrogate in a string or key (PostgreSQL's text and jsonb can hold neither).
 * Iterative, like exceedsDepth.
 */
export function jsonProblem(value: unknown, max: number = MAX_JSON_DEPTH): JsonProblem | null {
  return walkJson(value, max, stringProblem);
}

/** Walks a JSON value to `max` levels, giving every string and key to `check`; the first problem ends it. */
function walkJson(value: unknown, max: number, check: (text: string) => JsonProblem | null): JsonProblem | null {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current === 'string') {
      const problem = check(current);
      if (problem) return problem;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return 'too_deep';
    for (const [key, child] of Object.entries(current)) {
      const problem = check(key);
      if (problem) return problem;
      pending.push([child, depth + 1]);
    }
  }
  return null;
}

function stringProblem(text: string): JsonProblem | null {
  if (text.includes('\u0000')) return 'nul_character';
  return text.isWellFormed() ? null : 'unpaired_surrogate';
}

/**
 * A JSON document's text may hold characters PostgreSQL cannot store only as escapes
 * (`\u0000`, a lone `\ud800`): the cheap test before {@link replaceUnstorable} walks a value.
 */
export function mayHoldUnstorable(jsonText: string): boolean {
  return /\\u(0000|[dD][89a-fA-F])/.test(jsonText);
}

/**
 * Replaces what PostgreSQL cannot store in a parsed JSON value's strings and keys (NUL characters
 * and unpaired surrogates) with U+FFFD, in place, as PostHog's ingestion does for values bound
 * for PostgreSQL. Iterative, and to every level: what it leaves would fail the write.
 */
export function replaceUnstorable<T>(value: T): T {
  if (typeof value === 'string') return storable(value) as T;
  const pending: (Record<string, unknown> | unknown[])[] = [];
  if (value !== null && typeof value === 'object') pending.push(value as Record<string, unknown>);
  while (pending.length > 0) {
    const container = pending.pop()!;
    for (const key of Object.keys(container)) {
      const child = (container as Record<string, unknown>)[key];
      const fixedKey = Array.isArray(container) ? key : storable(key);
      const fixedChild = typeof child === 'string' ? storable(child) : child;
      if (fixedKey !== key) {
        delete (container as Record<string, unknown>)[key];
        Object.defineProperty(container, fixedKey, { value: fixedChild, enumerable: true, writable: true, configurable: true });
      } else if (fixedChild !== child) {
        (container as Record<string, unknown>)[key] = fixedChild;
      }
      if (fixedChild !== null && typeof fixedChild === 'object') pending.push(fixedChild as Record<string, unknown>);
    }
  }
  return value;
}

function storable(text: string): string {
  return stringProblem(text) ? text.replaceAll('\u0000', '\ufffd').toWellFormed() : text;
}

/** A field's value, refused as DRF refuses it: absent is `required`, null is `null` (never the same code). */
export function present<T>(value: T | null | undefined, attr: string): T {
  if (value === undefined) throw new ValidationError('This field is required.', attr, 'required');
  if (value === null) throw new ValidationError('This field may not be null.', attr, 'null');
  return value;
}

/**
 * A 400 `null` for the first of `fields` that the caller sent as null. A partial update leaves out
 * what it does not change; a null is not "no change" but a value these fields do not take, which
 * DRF refuses rather than ignores.
 */
export function refuseNulls(input: object, fields: readonly string[]): void {
  const field = fields.find((name) => (input as Record<string, unknown>)[name] === null);
  if (field !== undefined) throw new ValidationError('This field may not be null.', field, 'null');
}

const DRF_TRUE = new Set<unknown>([true, 1, 'true', 'True', 'TRUE', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', '1', 't', 'T', 'y', 'Y']);
const DRF_FALSE = new Set<unknown>([false, 0, 'false', 'False', 'FALSE', 'no', 'No', 'NO', 'off', 'Off', 'OFF', '0', 'f', 'F', 'n', 'N']);

/** What Django REST framework's BooleanField reads a value as (`"yes"`, `1`, `"off"`…); undefined when it refuses it. */
export function drfBoolean(value: unknown): boolean | undefined {
  if (DRF_TRUE.has(value)) return true;
  if (DRF_FALSE.has(value)) return false;
  return undefined;
}

/** What DRF's IntegerField reads a value as (a whole number, or a string of digits); undefined when it refuses it. */
export function drfInteger(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) ? number : undefined;
}
