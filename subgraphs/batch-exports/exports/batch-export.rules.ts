import { ValidationError } from '../../shared/errors.js';
import { isObject } from '../../shared/validation.js';
import { INTERVALS, isTimeZone, type Interval } from '../schedule/interval.js';

export const MODELS = ['events', 'persons'] as const;
/** PostHog's models this platform has no data for. */
const UNSUPPORTED_MODELS = ['sessions'];
const MAX_NAME_LENGTH = 256;

export function checkName(name: unknown, required: boolean): string | undefined {
  if (name === undefined || name === null) {
    if (required) throw new ValidationError('This field is required.', 'name', 'required');
    return undefined;
  }
  const text = String(name).trim();
  if (text === '') throw new ValidationError('This field may not be blank.', 'name', 'blank');
  if (text.length > MAX_NAME_LENGTH) throw new ValidationError(`Ensure this field has no more than ${MAX_NAME_LENGTH} characters.`, 'name', 'max_length');
  return text;
}

export function checkModel(model: unknown): string | undefined {
  if (model === undefined || model === null) return undefined;
  if (typeof model === 'string' && UNSUPPORTED_MODELS.includes(model)) throw new ValidationError(`The '${model}' model is not supported by this platform: export events or persons.`, 'model');
  if (!MODELS.includes(model as (typeof MODELS)[number])) throw choice(model, 'model');
  return model as string;
}

export function checkInterval(interval: unknown, required: boolean): Interval | undefined {
  if (interval === undefined || interval === null) {
    if (required) throw new ValidationError('This field is required.', 'interval', 'required');
    return undefined;
  }
  if (!INTERVALS.includes(interval as Interval)) throw choice(interval, 'interval');
  return interval as Interval;
}

export function checkTimezone(timezone: unknown): string | undefined {
  if (timezone === undefined) return undefined;
  if (timezone === null) return 'UTC';
  if (typeof timezone !== 'string' || !isTimeZone(timezone) || timezone.trim() !== timezone || timezone === '') throw choice(timezone, 'timezone');
  // The zone's own name (`europe/berlin` is Europe/Berlin).
  return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
}

const DATETIME_FORMAT = 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** A time as DRF reads it (no zone means UTC); null clears it; undefined leaves it. */
export function checkDateTime(value: unknown, attr: string): Date | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (typeof value !== 'string' || !ISO_DATETIME.test(value.trim())) throw new ValidationError(DATETIME_FORMAT, attr);
  const text = value.trim().replace(' ', 'T');
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(text) || !text.includes('T');
  const date = new Date(zoned ? text : `${text}Z`);
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  // Date reads February 30th as March 2nd.
  const exists = month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (!exists || Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1970) throw new ValidationError(DATETIME_FORMAT, attr);
  return date;
}

/**
 * PostHog's offsets: `offset_day` (0 = Sunday … 6) for weekly exports, `offset_hour` (0–23) for
 * daily and weekly ones, stored as seconds past the interval's start. Null for other intervals.
 */
export function intervalOffset(interval: Interval, offsetDay: number | null | undefined, offsetHour: number | null | undefined, stored: number | null): number | null {
  const day = offsetDay ?? null;
  const hour = offsetHour ?? null;
  if (day !== null && (day < 0 || day > 6)) throw new ValidationError(day < 0 ? 'Ensure this value is greater than or equal to 0.' : 'Ensure this value is less than or equal to 6.', 'offset_day', day < 0 ? 'min_value' : 'max_value');
  if (hour !== null && (hour < 0 || hour > 23)) throw new ValidationError(hour < 0 ? 'Ensure this value is greater than or equal to 0.' : 'Ensure this value is less than or equal to 23.', 'offset_hour', hour < 0 ? 'min_value' : 'max_value');
  if (interval === 'week') {
    const storedDay = stored === null ? 0 : Math.floor(stored / 86400);
    const storedHour = stored === null ? 0 : Math.floor(stored / 3600) % 24;
    return (day ?? storedDay) * 86400 + (hour ?? storedHour) * 3600;
  }
  if (interval === 'day') {
    if (day !== null) throw new ValidationError('offset_day should not be specified for daily intervals', 'offset_day');
    return (hour ?? (stored === null ? 0 : Math.floor(stored / 3600) % 24)) * 3600;
  }
  if (day !== null) throw new ValidationError('offset_day is not applicable for non-daily/weekly intervals', 'offset_day');
  if (hour !== null) throw new ValidationError('offset_hour is not applicable for non-daily/weekly intervals', 'offset_hour');
  return null;
}

/** `offset_day` and `offset_hour` as PostHog answers them from the stored offset. */
export function offsetsOf(interval: string, offset: number | null): { offset_day: number | null; offset_hour: number | null } {
  if (interval === 'week') return { offset_day: Math.floor((offset ?? 0) / 86400), offset_hour: Math.floor((offset ?? 0) / 3600) % 24 };
  if (interval === 'day') return { offset_day: null, offset_hour: Math.floor((offset ?? 0) / 3600) % 24 };
  return { offset_day: null, offset_hour: null };
}

const FILTER_TYPES = ['event', 'person'];

/** PostHog's property filters: a list of `{key, operator, type, value}` objects (applied when runs read). */
export function checkFilters(filters: unknown): unknown[] | null | undefined {
  if (filters === undefined) return undefined;
  if (filters === null) return null;
  if (!Array.isArray(filters)) throw new ValidationError("'filters' should be an array of filters", 'filters');
  filters.forEach((filter, index) => {
    if (!isObject(filter)) throw new ValidationError('Each filter must be an object', `filters__${index}`);
    if (filter.key === 'data_interval_start' || filter.key === 'data_interval_end') {
      throw new ValidationError("'data_interval_start' and 'data_interval_end' are run attributes and not 'filters'. Trigger a backfill if you wish to manually control which periods to batch export.", `filters__${index}`);
    }
    if (!FILTER_TYPES.includes(filter.type as string)) throw new ValidationError(`Each filter must have a 'type' of one of: ${FILTER_TYPES.join(', ')}`, `filters__${index}__type`);
    if (typeof filter.key !== 'string' || filter.key === '') throw new ValidationError('This field is required.', `filters__${index}__key`, 'required');
  });
  return filters;
}

function choice(value: unknown, attr: string): ValidationError {
  return new ValidationError(`"${String(value)}" is not a valid choice.`, attr, 'invalid_choice');
}
