import { settingError } from './setting.errors.js';
import { SETTINGS, type SettingName } from './setting.catalog.js';
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
    if (!parsed.success) throw settingError(name, parsed.error.issues[0]!, input[name]);
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
