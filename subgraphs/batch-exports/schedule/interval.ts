/** PostHog's interval choices. */
export const INTERVALS = ['hour', 'day', 'week', 'every 5 minutes', 'every 15 minutes'] as const;
export type Interval = (typeof INTERVALS)[number];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How an export's intervals are laid on the clock. */
export interface IntervalSpec {
  interval: Interval;
  /** `offset_day * 86400 + offset_hour * 3600` for weeks, `offset_hour * 3600` for days, else null. */
  offsetSeconds: number | null;
  timezone: string;
}

/** A data interval: `[start, end)`. */
export interface DataInterval {
  start: Date;
  end: Date;
}

/** Its length in ms for minute and hour intervals (the ones the zone does not stretch). */
export function fixedLength(interval: Interval): number | null {
  const minutes = /^every (\d+) minutes$/.exec(interval);
  if (minutes) return Number(minutes[1]) * MINUTE;
  return interval === 'hour' ? HOUR : null;
}

/**
 * The interval boundary at or before `at`. Minute intervals are laid from the epoch, hours by the
 * zone's clock (the same as UTC's for zones a whole hour off), days from the zone's midnight plus
 * the offset hour, weeks from the offset day (0 = Sunday) at the offset hour.
 */
export function boundaryAtOrBefore(spec: IntervalSpec, at: Date): Date {
  const t = at.getTime();
  const fixed = fixedLength(spec.interval);
  if (spec.interval !== 'hour' && fixed) return new Date(Math.floor(t / fixed) * fixed);
  if (spec.interval === 'hour') {
    const offset = zoneOffsetMs(spec.timezone, t);
    return new Date(Math.floor((t + offset) / HOUR) * HOUR - offset);
  }
  const local = wallClock(spec.timezone, t);
  const offsetHour = Math.floor((spec.offsetSeconds ?? 0) / 3600) % 24;
  // Local wall time as if it were UTC: days and weeks are then plain arithmetic.
  let day = Date.UTC(local.year, local.month - 1, local.day);
  if (local.hour < offsetHour) day -= DAY;
  if (spec.interval === 'week') {
    const offsetDay = Math.floor((spec.offsetSeconds ?? 0) / 86400);
    const weekday = new Date(day).getUTCDay();
    day -= ((weekday - offsetDay + 7) % 7) * DAY;
  }
  let boundary = fromWallClock(spec.timezone, day + offsetHour * HOUR);
  // The offset hour may not exist on a day the clocks go forward: a boundary after `at` steps back a period.
  if (boundary.getTime() > t) boundary = fromWallClock(spec.timezone, day - (spec.interval === 'week' ? 7 : 1) * DAY + offsetHour * HOUR);
  return boundary;
}

/** The boundary after `boundary` (a day is 23 or 25 hours on the days the zone's clocks change). */
export function nextBoundary(spec: IntervalSpec, boundary: Date): Date {
  const fixed = fixedLength(spec.interval);
  if (fixed) return boundaryAtOrBefore(spec, new Date(boundary.getTime() + fixed + (spec.interval === 'hour' ? 2 * MINUTE : 0)));
  const step = spec.interval === 'week' ? 7 * DAY : DAY;
  // A day and a half (ten and a half for weeks) on lands inside the next interval, whatever the clocks did.
  return boundaryAtOrBefore(spec, new Date(boundary.getTime() + step + step / 2));
}

/** The intervals whose ends lie in `(after, until]`, oldest first. */
export function intervalsEndingIn(spec: IntervalSpec, after: Date, until: Date, max = Infinity): DataInterval[] {
  const intervals: DataInterval[] = [];
  let start = boundaryAtOrBefore(spec, after);
  for (;;) {
    const end = nextBoundary(spec, start);
    if (end.getTime() > until.getTime() || intervals.length >= max) return intervals;
    if (end.getTime() > after.getTime()) intervals.push({ start, end });
    start = end;
  }
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timezone: string): Intl.DateTimeFormat {
  let format = formats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timezone, format);
  }
  return format;
}

function wallClock(timezone: string, t: number): WallClock {
  const parts = Object.fromEntries(formatOf(timezone).formatToParts(new Date(t)).map((part) => [part.type, Number(part.value)]));
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** How far the zone's clock is ahead of UTC at `t`, in ms. */
export function zoneOffsetMs(timezone: string, t: number): number {
  const local = wallClock(timezone, t);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return asUtc - Math.floor(t / 1000) * 1000;
}

/**
 * The instant the zone's clock shows `wall` (a wall time written as UTC ms). A time the clocks
 * skip is taken as the instant after the gap; a time shown twice, as the first.
 */
function fromWallClock(timezone: string, wall: number): Date {
  const first = wall - zoneOffsetMs(timezone, wall);
  const second = wall - zoneOffsetMs(timezone, first);
  if (second === first) return new Date(first);
  // Around a change the two readings differ: the earlier instant that shows `wall`, else the gap's end.
  const earlier = Math.min(first, second);
  return new Date(earlier + zoneOffsetMs(timezone, earlier) === wall ? earlier : Math.max(first, second));
}

/** Whether the runtime knows an IANA zone. */
export function isTimeZone(timezone: string): boolean {
  try {
    formatOf(timezone);
    return true;
  } catch {
    return false;
  }
}
