import { z } from 'zod';

/** How a setting travels in GraphQL (and so in REST and the OpenAPI document). */
export type SettingKind = 'boolean' | 'string' | 'int' | 'strings' | 'json';

export interface SettingSpec {
  kind: SettingKind;
  /** What a new environment has. */
  default: unknown;
  /** Validates (and may normalise) a value written by a caller; null is allowed when the schema allows it. */
  schema: z.ZodTypeAny;
  /** Only on environment records (the API document's "in addition" list). */
  environmentOnly?: boolean;
  description?: string;
}

/** Free-form JSON settings are bounded so that one environment cannot hold megabytes of them. */
export const MAX_JSON_SETTING_BYTES = 64 * 1024;

const json = (shape: 'object' | 'array'): z.ZodTypeAny => {
  const base: z.ZodTypeAny = shape === 'object' ? z.record(z.unknown()) : z.array(z.unknown());
  return base.nullable().refine((value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null)) <= MAX_JSON_SETTING_BYTES, {
    message: `Ensure this value is no larger than ${MAX_JSON_SETTING_BYTES} bytes of JSON.`,
  });
};
const strings = (maxLength: number) => z.array(z.string().max(maxLength));
const decimalBetween = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+(\.\d{1,2})?$/, 'Enter a number with at most 2 decimal places.')
    .refine((value) => Number(value) >= min && Number(value) <= max, `Ensure this value is between ${min} and ${max}.`)
    .transform((value) => Number(value).toFixed(2))
    .nullable();
const choice = <T extends [string, ...string[]]>(values: T) => z.enum(values);
/** A refinement that stands for one of PostHog's choice fields (an IANA time zone, an ISO 4217 code): its error is `invalid_choice`. */
const CHOICE = { message: 'not a valid choice', params: { choice: true } };
const ianaTimezone = z.string().refine((value) => {
  try {
    return Boolean(new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone);
  } catch {
    return false;
  }
}, CHOICE);
const currency = z
  .string()
  .transform((value) => value.toUpperCase())
  .refine((value) => Intl.supportedValuesOf('currency').includes(value), CHOICE);

const boolean = (value: boolean): SettingSpec => ({ kind: 'boolean', default: value, schema: z.boolean() });
const object = (): SettingSpec => ({ kind: 'json', default: null, schema: json('object') });
const array = (value: unknown[] | null = []): SettingSpec => ({ kind: 'json', default: value, schema: json('array') });

/**
 * Every setting of a project and an environment (API document section 2; defaults and value sets
 * from PostHog's team model, posthog-notes §9.1). A project's settings are its primary
 * environment's. Typed settings keep their GraphQL type; untyped ones are JSON within a size limit.
 */
export const SETTINGS = {
  product_description: { kind: 'string', default: null, schema: z.string().max(1000).nullable() },
  app_urls: { kind: 'strings', default: [], schema: strings(200) },
  slack_incoming_webhook: { kind: 'string', default: null, schema: z.string().max(500).url().nullable() },
  anonymize_ips: boolean(false),
  completed_snippet_onboarding: boolean(false),
  test_account_filters_default_checked: boolean(false),
  is_demo: boolean(false),
  person_display_name_properties: { kind: 'strings', default: null, schema: strings(400).nullable() },
  autocapture_opt_out: boolean(false),
  autocapture_exceptions_opt_in: boolean(false),
  autocapture_web_vitals_opt_in: boolean(false),
  capture_console_log_opt_in: boolean(true),
  capture_performance_opt_in: boolean(true),
  session_recording_opt_in: boolean(false),
  session_recording_sample_rate: {
    kind: 'string',
    default: null,
    schema: decimalBetween(0, 1),
    description: 'Share of sessions recorded, a decimal string from "0.00" to "1.00"; null records all.',
  },
  session_recording_minimum_duration_milliseconds: { kind: 'int', default: null, schema: z.number().int().min(0).max(30000).nullable() },
  access_control: boolean(false),
  primary_dashboard: { kind: 'int', default: null, schema: z.number().int().positive().nullable() },
  live_events_columns: { kind: 'strings', default: null, schema: strings(200).nullable() },
  recording_domains: { kind: 'strings', default: [], schema: strings(200).nullable() },
  inject_web_apps: boolean(false),
  surveys_opt_in: boolean(false),
  heatmaps_opt_in: boolean(false),
  flags_persistence_default: boolean(false),
  receive_org_level_activity_logs: boolean(false),
  conversations_enabled: boolean(false),
  test_account_filters: array(),
  path_cleaning_filters: array(),
  timezone: { kind: 'string', default: 'UTC', schema: ianaTimezone, description: 'An IANA time zone name.' },
  data_attributes: array(['data-attr']),
  correlation_config: { kind: 'json', default: {}, schema: json('object') },
  autocapture_web_vitals_allowed_metrics: array(null),
  autocapture_exceptions_errors_to_ignore: array(null),
  session_recording_linked_flag: object(),
  session_recording_network_payload_capture_config: object(),
  session_recording_masking_config: object(),
  session_replay_config: object(),
  survey_config: object(),
  week_start_day: { kind: 'int', default: null, schema: z.union([z.literal(0), z.literal(1)]).nullable(), description: '0 (Sunday) or 1 (Monday).' },
  extra_settings: object(),
  modifiers: object(),
  has_completed_onboarding_for: object(),
  business_model: { kind: 'string', default: null, schema: choice(['b2b', 'b2c', 'other']).nullable() },
  conversations_settings: object(),
  logs_settings: object(),

  session_recording_url_trigger_config: { ...array(), environmentOnly: true },
  session_recording_url_blocklist_config: { ...array(), environmentOnly: true },
  session_recording_event_trigger_config: { kind: 'strings', default: [], schema: strings(400).nullable(), environmentOnly: true },
  session_recording_trigger_match_type_config: { kind: 'string', default: null, schema: z.string().max(24).nullable(), environmentOnly: true },
  session_recording_retention_period: { kind: 'string', default: '30d', schema: choice(['30d', '90d', '1y', '5y']), environmentOnly: true },
  cookieless_server_hash_mode: {
    kind: 'int',
    default: 0,
    schema: z.union([z.literal(0), z.literal(1), z.literal(2)]),
    environmentOnly: true,
    description: '0 disabled, 1 stateless, 2 stateful.',
  },
  human_friendly_comparison_periods: { ...boolean(false), environmentOnly: true },
  feature_flag_confirmation_enabled: { ...boolean(false), environmentOnly: true },
  feature_flag_confirmation_message: { kind: 'string', default: null, schema: z.string().max(1000).nullable(), environmentOnly: true },
  default_evaluation_contexts_enabled: { ...boolean(false), environmentOnly: true },
  require_evaluation_contexts: { ...boolean(false), environmentOnly: true },
  capture_dead_clicks: { ...boolean(false), environmentOnly: true },
  default_data_theme: { kind: 'int', default: null, schema: z.number().int().positive().nullable(), environmentOnly: true },
  revenue_analytics_config: { ...object(), environmentOnly: true },
  marketing_analytics_config: { ...object(), environmentOnly: true },
  customer_analytics_config: { ...object(), environmentOnly: true },
  onboarding_tasks: { ...object(), environmentOnly: true },
  base_currency: { kind: 'string', default: 'USD', schema: currency, environmentOnly: true, description: 'An ISO 4217 code.' },
  web_analytics_pre_aggregated_tables_enabled: { ...boolean(false), environmentOnly: true },
  experiment_recalculation_time: {
    kind: 'string',
    default: null,
    schema: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/, 'Use HH:MM:SS.').nullable(),
    environmentOnly: true,
  },
  default_experiment_confidence_level: { kind: 'string', default: null, schema: decimalBetween(0, 1), environmentOnly: true },
  default_experiment_stats_method: { kind: 'string', default: null, schema: choice(['bayesian', 'frequentist']).nullable(), environmentOnly: true },
} satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];
export const PROJECT_SETTING_NAMES = SETTING_NAMES.filter((name) => !(SETTINGS[name] as SettingSpec).environmentOnly);
