/** An instant with microseconds, as PostgreSQL keeps it (a JavaScript Date stops at milliseconds). */
export interface EventTime {
  /** Milliseconds since the epoch. */
  ms: number;
  /** Microseconds within that millisecond, 0 to 999. */
  micros: number;
}

/** The zone is `Z` or an offset of at most ±23:59 (RFC 3339's range: hours 00-23, minutes 00-59). */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*([Zz]|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?$/;
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const EARLIEST = Date.UTC(1970, 0, 1);
const HOUR_MS = 3_600_000;
/** PostHog's capture: an event dated further ahead than this is taken as sent now. */
export const MAX_FUTURE_MS = 23 * HOUR_MS;
/** PostHog's capture rounds the client's clock skew to this, so that transit time does not move events. */
const SKEW_QUANTUM_MS = 5 * 60_000;

/**
 * An ISO 8601 date-time (`2024-05-01T12:00:00.123456Z`, `…+02:00`, a space for the `T`, no zone
 * meaning UTC, or a date alone meaning its midnight), or null when the text is not one, names a
 * day or hour that does not exist, or lies before 1970 or after 9999.
 */
export function parseIsoTime(text: string): EventTime | null {
  // What `Date.prototype.toISOString` writes (most SDKs): Date.parse reads it, though it rolls
  // 30 February over into March, which the day check catches.
  if (text.length === 24 && CANONICAL.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) || ms < EARLIEST || new Date(ms).getUTCDate() !== Number(text.slice(8, 10)) ? null : { ms, micros: 0 };
  }
  const match = ISO_8601.exec(text.trim());
  if (!match) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const fraction = (match[7] ?? '').padEnd(6, '0');
  const local = Date.UTC(year!, month! - 1, day!, hour, minute, second, Number(fraction.slice(0, 3)));
  const check = new Date(local);
  // Date.UTC rolls 31 April over into May; a real date comes back as it went in.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month! - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    return null;
  }
  const ms = local - zoneOffsetMs(match[8]);
  if (ms < EARLIEST || year! > 9999) return null;
  return { ms, micros: Number(fraction.slice(3, 6)) };
}

function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0');
  return (zone.startsWith('-') ? -1 : 1) * minutes * 60_000;
}

/** `2024-05-01T12:00:00.123456Z`: UTC, always six fractional digits. */
export function formatEventTime(time: EventTime): string {
  return `${new Date(time.ms).toISOString().slice(0, 23)}${String(time.micros).padStart(3, '0')}Z`;
}

/**
 * When an event happened, by PostHog's capture rules: the client's `timestamp`, shifted by the
 * client's clock skew when the batch says when it was sent (`sent_at`, unless the event sets
 * `$ignore_sent_at`), the skew rounded to five minutes; a time more than 23 hours ahead is taken
 * as now. A skew that would move the event before 1970 is a `sent_at` from another era, not a
 * clock: the event keeps its own time.
 */
export function storedTime(timestamp: EventTime, sentAt: EventTime | null, now: number): EventTime {
  let ms = timestamp.ms;
  if (sentAt) ms -= Math.round((sentAt.ms - now) / SKEW_QUANTUM_MS) * SKEW_QUANTUM_MS;
  if (ms < EARLIEST) ms = timestamp.ms;
  return ms > now + MAX_FUTURE_MS ? { ms: now, micros: 0 } : { ms, micros: timestamp.micros };
}
