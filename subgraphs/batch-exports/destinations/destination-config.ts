import { ValidationError } from '../../shared/errors.js';
import { isObject, pythonTypeName, type JsonObject } from '../../shared/validation.js';

/** One field of a destination's config, as PostHog's workflow inputs declare it. */
export interface ConfigField {
  name: string;
  type: 'string' | 'integer' | 'boolean' | 'string[]';
  required?: boolean;
  /** Write-only: sealed at rest, never answered. */
  secret?: boolean;
  /** What a config without the field means; null when absent means nothing. */
  default?: unknown;
  /** The values it may take (null included when it may be absent). */
  choices?: readonly (string | null)[];
  description: string;
}

/** The event names every destination's config may include or exclude (PostHog's base inputs). */
export const EVENT_FILTERS: ConfigField[] = [
  { name: 'include_events', type: 'string[]', description: 'Only events of these names.' },
  { name: 'exclude_events', type: 'string[]', description: 'No events of these names.' },
];

const PYTHON_TYPES: Record<ConfigField['type'], string> = { string: 'str', integer: 'int', boolean: 'bool', 'string[]': 'list' };

/** A value of the field's type, with PostHog's coercions (`"5432"` is 5432, `"true"` is true); undefined when it is none. */
function coerce(field: ConfigField, value: unknown): unknown {
  switch (field.type) {
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'integer':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      return typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim()) ? Number(value) : undefined;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'True') return true;
      return value === 'false' || value === 'False' ? false : undefined;
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
  }
}

/**
 * A destination config checked against its fields, as PostHog checks it against the workflow's
 * inputs: no unknown fields, every required one present (unless `partial`: a PATCH merges into
 * the stored config), each of its type (numbers and booleans given as text are taken) and among
 * its choices. Nulls stand for absent fields.
 */
export function checkConfig(fields: readonly ConfigField[], config: unknown, partial: boolean): JsonObject {
  if (!isObject(config)) throw new ValidationError('The destination config must be an object.', 'destination');
  const known = new Map(fields.map((field) => [field.name, field]));
  const unknown = Object.keys(config).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new ValidationError(`Configuration has unknown field/s: ${unknown.map((name) => `'${name}'`).join(', ')}`, 'destination');
  const checked: JsonObject = {};
  for (const field of fields) {
    const value = config[field.name];
    if (value === undefined || value === null) {
      if (value === null) checked[field.name] = null;
      if (!partial && field.required) throw new ValidationError(`Configuration missing required field: '${field.name}'`, 'destination');
      continue;
    }
    const coerced = coerce(field, value);
    if (coerced === undefined) throw new ValidationError(`Configuration has invalid type: got '${pythonTypeName(value)}', expected '${PYTHON_TYPES[field.type]}'`, 'destination');
    if (field.choices && !field.choices.includes(coerced as string)) {
      throw new ValidationError(`"${String(coerced)}" is not a valid choice for '${field.name}'. Choices are: ${field.choices.filter((choice) => choice !== null).join(', ')}.`, 'destination');
    }
    checked[field.name] = coerced;
  }
  return checked;
}

/** A config's fields with its defaults filled in, as a run reads it. */
export function withDefaults(fields: readonly ConfigField[], config: JsonObject): JsonObject {
  const filled: JsonObject = {};
  for (const field of fields) filled[field.name] = config[field.name] ?? field.default ?? null;
  return filled;
}

/** Splits a config into what may be shown and the write-only secrets. */
export function splitSecrets(fields: readonly ConfigField[], config: JsonObject): { open: JsonObject; secrets: JsonObject } {
  const secretNames = new Set(fields.filter((field) => field.secret).map((field) => field.name));
  const open: JsonObject = {};
  const secrets: JsonObject = {};
  for (const [name, value] of Object.entries(config)) (secretNames.has(name) ? secrets : open)[name] = value;
  return { open, secrets };
}

/** A destination's words with the config's secret values masked: a server's refusal may repeat the user or token it refused. */
export function redactSecrets(message: string, fields: readonly ConfigField[], config: JsonObject): string {
  let text = message;
  for (const field of fields) {
    const value = config[field.name];
    if (field.secret && typeof value === 'string' && value.length >= 3) text = text.split(value).join('********');
  }
  return text;
}
