import type { ZodIssue } from 'zod';
import { ValidationError } from '../../shared/errors.js';
import { SETTINGS, type SettingName } from './setting.spec.js';
import { spec } from './settings.fields.js';

export type Settings = Partial<Record<SettingName, unknown>>;

/**
 * Every named setting: the stored value where one was written, the default otherwise (a copy when
 * it is an object or list, which a caller may change; a list page fills in thousands of defaults).
 */
export function effectiveSettings(stored: Settings, names: readonly SettingName[]): Record<SettingName, unknown> {
  const result = {} as Record<SettingName, unknown>;
  for (const name of names) result[name] = name in stored ? stored[name] : copyOf(spec(name).default);
  return result;
}

function copyOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/**
 * The settings a caller wrote (absent ones left out), validated and normalised; the first invalid
 * one is a 400 naming it, as DRF reports the first field error.
 */
export function validateSettings(input: Record<string, unknown>, names: readonly SettingName[]): Settings {
  const valid: Settings = {};
  for (const name of names) {
    if (input[name] === undefined) continue;
    const parsed = spec(name).schema.safeParse(input[name]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ValidationError(message(issue, input[name]), name, code(issue));
    }
    valid[name] = parsed.data;
  }
  return valid;
}

export interface SettingChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** The settings whose values differ (compared as JSON), in the table's order. */
export function changedSettings(before: Record<string, unknown>, written: Settings): SettingChange[] {
  return (Object.keys(written) as SettingName[])
    .filter((name) => JSON.stringify(before[name]) !== JSON.stringify(written[name]))
    .map((name) => ({ field: name, before: before[name] ?? null, after: written[name] ?? null }));
}

export const isSetting = (name: string): name is SettingName => Object.hasOwn(SETTINGS, name);

function code(issue: ZodIssue): string {
  if (issue.code === 'invalid_enum_value' || issue.code === 'invalid_union' || issue.code === 'invalid_literal') return 'invalid_choice';
  if (issue.code === 'invalid_type' && issue.received === 'null') return 'null';
  if (issue.code === 'too_big') return 'max_length';
  return 'invalid';
}

function message(issue: ZodIssue, value: unknown): string {
  if (code(issue) === 'invalid_choice') return `"${String(value)}" is not a valid choice.`;
  if (code(issue) === 'null') return 'This field may not be null.';
  return issue.message;
}
