import { ValidationError } from '../../shared/errors.js';
import { jsonProblem, jsonSize } from '../../shared/validation.js';
import type { UpdateUserArgs } from './user-account.inputs.js';
import type { User } from './user.entity.js';

export const MAX_NAME_LENGTH = 150;
export const MAX_EMAIL_LENGTH = 254;
/** Free-form preferences are bounded, so that one account cannot hold megabytes of them. */
export const MAX_JSON_PREFERENCE_BYTES = 64 * 1024;
/**
 * An address and nothing else: no display names, lists, quotes or comments, which mail libraries
 * would read as more (`a,b@evil.test` is two recipients).
 */
const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export const ROLES_AT_ORGANIZATION = ['engineering', 'data', 'product', 'founder', 'leadership', 'marketing', 'sales', 'other'];
const TOOLBAR_MODES = ['disabled', 'toolbar'];
const THEME_MODES = ['light', 'dark', 'system'];

/** PostHog's defaults; a user's record shows their own choices over these. */
export const NOTIFICATION_DEFAULTS: Record<string, unknown> = {
  plugin_disabled: true,
  error_tracking_issue_assigned: true,
  discussions_mentioned: true,
  project_weekly_digest_disabled: {},
  all_weekly_digest_disabled: false,
};
export const EVENTS_COLUMN_DEFAULT = { active: 'DEFAULT' };

/** The profile fields a PATCH may set directly (email, password, staff and current ids have their own rules). */
export type ProfilePatch = Partial<
  Pick<
    User,
    | 'first_name'
    | 'last_name'
    | 'anonymize_data'
    | 'notification_settings'
    | 'toolbar_mode'
    | 'theme_mode'
    | 'events_column_config'
    | 'has_seen_product_intro_for'
    | 'hedgehog_config'
    | 'role_at_organization'
  >
>;

/** Checks every plain profile field present in `args` and returns them as the user's new values. */
export function profilePatch(args: UpdateUserArgs, current: User): ProfilePatch {
  const patch: ProfilePatch = {};
  if (args.first_name != null) patch.first_name = name(args.first_name, 'first_name');
  if (args.last_name != null) patch.last_name = name(args.last_name, 'last_name');
  if (args.anonymize_data != null) patch.anonymize_data = args.anonymize_data;
  if (args.notification_settings !== undefined) {
    patch.notification_settings = notificationSettings(args.notification_settings, current.notification_settings);
  }
  if (args.toolbar_mode !== undefined) patch.toolbar_mode = choice(args.toolbar_mode, TOOLBAR_MODES, 'toolbar_mode', false)!;
  if (args.theme_mode !== undefined) patch.theme_mode = choice(args.theme_mode, THEME_MODES, 'theme_mode', true);
  if (args.role_at_organization !== undefined) {
    patch.role_at_organization = choice(args.role_at_organization === '' ? null : args.role_at_organization, ROLES_AT_ORGANIZATION, 'role_at_organization', true);
  }
  if (args.events_column_config !== undefined) patch.events_column_config = jsonObject(args.events_column_config, 'events_column_config');
  if (args.has_seen_product_intro_for !== undefined) {
    patch.has_seen_product_intro_for = jsonObject(args.has_seen_product_intro_for, 'has_seen_product_intro_for');
  }
  if (args.hedgehog_config !== undefined) {
    patch.hedgehog_config = jsonObject(args.hedgehog_config, 'hedgehog_config') as Record<string, unknown> | null;
  }
  return patch;
}

/** An email address as stored: trimmed, lower-cased, checked. */
export function normalizedEmail(value: string, attr = 'email'): string {
  const email = value.trim().toLowerCase();
  if (!email) throw new ValidationError('This field may not be blank.', attr, 'blank');
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) throw new ValidationError('Enter a valid email address.', attr);
  return email;
}

/** A new password: at least 8 characters (and no more than a hash should ever be asked to take). */
export function newPassword(value: string): string {
  if (value.length < 8) {
    throw new ValidationError('This password is too short. It must contain at least 8 characters.', 'password', 'password_too_short');
  }
  if (value.length > 1024) throw new ValidationError('Ensure this field has no more than 1024 characters.', 'password', 'max_length');
  return value;
}

function name(value: string, attr: string): string {
  const trimmed = value.trim();
  if (trimmed.length > MAX_NAME_LENGTH) {
    throw new ValidationError(`Ensure this field has no more than ${MAX_NAME_LENGTH} characters.`, attr, 'max_length');
  }
  if (trimmed.includes('\u0000')) throw new ValidationError('Null characters are not allowed.', attr, 'null_characters_not_allowed');
  return trimmed;
}

function choice(value: unknown, allowed: string[], attr: string, nullable: boolean): string | null {
  if (value === null && nullable) return null;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new ValidationError(`"${String(value)}" is not a valid choice.`, attr, 'invalid_choice');
  }
  return value;
}

/** A JSON object (or null) within the size and depth limits. */
function jsonObject(value: unknown, attr: string): Record<string, unknown> | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError('Expected a dictionary of items.', attr, 'not_a_dict');
  }
  const problem = jsonProblem(value);
  if (problem === 'nul_character') throw new ValidationError('Null characters are not allowed.', attr, 'null_characters_not_allowed');
  if (problem === 'unpaired_surrogate') throw new ValidationError('Unpaired surrogate characters are not allowed.', attr);
  if (problem === 'too_deep') throw new ValidationError('This value nests too deeply.', attr, 'too_deep');
  if (jsonSize(value) > MAX_JSON_PREFERENCE_BYTES) {
    throw new ValidationError(`Ensure this value is no larger than ${MAX_JSON_PREFERENCE_BYTES} bytes of JSON.`, attr, 'max_length');
  }
  return value as Record<string, unknown>;
}

/**
 * Notification choices merge into the stored ones (PostHog's partial update). Known keys only:
 * booleans, and per-project digest opt-outs as `{"<project id>": true|false}`.
 */
function notificationSettings(value: unknown, stored: Record<string, unknown>): Record<string, unknown> {
  const attr = 'notification_settings';
  const given = jsonObject(value, attr);
  if (given === null) return {};
  for (const [key, setting] of Object.entries(given)) {
    // Own keys only: `in` would take `toString` or `__proto__` for settings.
    if (!Object.hasOwn(NOTIFICATION_DEFAULTS, key)) throw new ValidationError(`Unknown notification setting: ${key}`, attr, 'invalid_key');
    const valid =
      key === 'project_weekly_digest_disabled'
        ? typeof setting === 'object' && setting !== null && !Array.isArray(setting) && Object.values(setting).every((item) => typeof item === 'boolean')
        : typeof setting === 'boolean';
    if (!valid) throw new ValidationError(`Invalid value for notification setting: ${key}`, attr);
  }
  return { ...stored, ...given };
}
