import { ValidationError } from '../../shared/errors.js';

/** PostHog's name rule: a letter, then letters, digits, `_` or `-`; 1 to 128 characters. */
const NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,127}$/;

export const NAME_RULE =
  'Endpoint name must start with a letter, contain only alphanumeric characters, hyphens, or underscores, and be between 1 and 128 characters long.';

export const MIN_CACHE_AGE_SECONDS = 300;
export const MAX_CACHE_AGE_SECONDS = 86_400;

/** Longest description kept (PostHog's is a text field; ours is bounded, as every stored text). */
export const MAX_DESCRIPTION_LENGTH = 10_000;

export function isValidName(name: string): boolean {
  return NAME.test(name);
}

export function checkName(name: string | null | undefined): string {
  if (name === null || name === undefined || name === '') throw new ValidationError('Endpoint must have a name.', 'name', 'required');
  if (!isValidName(name)) throw new ValidationError(NAME_RULE, 'name');
  return name;
}

export function checkCacheAge(seconds: number | null | undefined): number | null {
  if (seconds === null || seconds === undefined) return null;
  if (!Number.isFinite(seconds) || seconds < MIN_CACHE_AGE_SECONDS || seconds > MAX_CACHE_AGE_SECONDS) {
    throw new ValidationError(`Cache age must be between ${MIN_CACHE_AGE_SECONDS} and ${MAX_CACHE_AGE_SECONDS} seconds.`, 'cache_age_seconds');
  }
  return Math.round(seconds);
}

export function checkDescription(description: string | null | undefined): string {
  const text = description ?? '';
  if (text.length > MAX_DESCRIPTION_LENGTH) {
    throw new ValidationError(`Ensure this field has no more than ${MAX_DESCRIPTION_LENGTH} characters.`, 'description', 'max_length');
  }
  return text;
}

/**
 * Whether two query nodes are the same query: a deep comparison with object keys sorted, so that
 * key order alone is no change (PostHog's rule for making a new version).
 */
export function sameQuery(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
