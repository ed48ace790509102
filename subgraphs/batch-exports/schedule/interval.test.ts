import { describe, expect, it } from 'vitest';
import { boundaryAtOrBefore, intervalsEndingIn, nextBoundary, type IntervalSpec } from './interval.js';

const spec = (interval: IntervalSpec['interval'], timezone = 'UTC', offsetSeconds: number | null = null): IntervalSpec => ({ interval, timezone, offsetSeconds });
const iso = (date: Date) => date.toISOString();
const ends = (s: IntervalSpec, after: string, until: string) => intervalsEndingIn(s, new Date(after), new Date(until)).map(({ start, end }) => `${iso(start)} ${iso(end)}`);

describe('boundaryAtOrBefore', () => {
  it('lays minute intervals from the epoch', () => {
    expect(iso(boundaryAtOrBefore(spec('every 5 minutes'), new Date('2026-03-01T10:07:59Z')))).toBe('2026-03-01T10:05:00.000Z');
    expect(iso(boundaryAtOrBefore(spec('every 15 minutes'), new Date('2026-03-01T10:15:00Z')))).toBe('2026-03-01T10:15:00.000Z');
  });

  it('lays hours by the zone\'s clock, a half hour off UTC in India', () => {
    expect(iso(boundaryAtOrBefore(spec('hour'), new Date('2026-03-01T10:59:59.999Z')))).toBe('2026-03-01T10:00:00.000Z');
    expect(iso(boundaryAtOrBefore(spec('hour', 'Asia/Kolkata'), new Date('2026-03-01T10:10:00Z')))).toBe('2026-03-01T09:30:00.000Z');
  });

  it('starts days at the zone\'s midnight plus the offset hour', () => {
    expect(iso(boundaryAtOrBefore(spec('day'), new Date('2026-03-01T00:00:00Z')))).toBe('2026-03-01T00:00:00.000Z');
    expect(iso(boundaryAtOrBefore(spec('day', 'Europe/Berlin'), new Date('2026-03-01T10:00:00Z')))).toBe('2026-02-28T23:00:00.000Z');
    expect(iso(boundaryAtOrBefore(spec('day', 'UTC', 5 * 3600), new Date('2026-03-01T04:59:00Z')))).toBe('2026-02-28T05:00:00.000Z');
    expect(iso(boundaryAtOrBefore(spec('day', 'America/New_York', 2 * 3600), new Date('2026-03-01T10:00:00Z')))).toBe('2026-03-01T07:00:00.000Z');
  });

  it('starts weeks on the offset day (0 = Sunday) at the offset hour', () => {
    // 2026-03-04 is a Wednesday.
    expect(iso(boundaryAtOrBefore(spec('week'), new Date('2026-03-04T12:00:00Z')))).toBe('2026-03-01T00:00:00.000Z');
    expect(iso(boundaryAtOrBefore(spec('week', 'UTC', 86400 + 6 * 3600), new Date('2026-03-04T12:00:00Z')))).toBe('2026-03-02T06:00:00.000Z');
    expect(iso(boundaryAtOrBefore(spec('week', 'UTC', 3 * 86400 + 13 * 3600), new Date('2026-03-04T12:00:00Z')))).toBe('2026-02-25T13:00:00.000Z');
  });
});

describe('nextBoundary', () => {
  it('makes the day the clocks go forward 23 hours long, and the day they go back 25', () => {
    const berlin = spec('day', 'Europe/Berlin');
    expect(iso(nextBoundary(berlin, new Date('2026-03-28T23:00:00Z')))).toBe('2026-03-29T22:00:00.000Z');
    expect(iso(nextBoundary(berlin, new Date('2026-10-24T22:00:00Z')))).toBe('2026-10-25T23:00:00.000Z');
  });

  it('starts a day at the first instant after the gap when its offset hour does not exist', () => {
    // Berlin skips 02:00-03:00 on 2026-03-29.
    const berlin = spec('day', 'Europe/Berlin', 2 * 3600);
    expect(iso(nextBoundary(berlin, new Date('2026-03-28T01:00:00Z')))).toBe('2026-03-29T01:00:00.000Z');
    expect(iso(nextBoundary(berlin, new Date('2026-03-29T01:00:00Z')))).toBe('2026-03-30T00:00:00.000Z');
  });
});

describe('intervalsEndingIn', () => {
  it('lists every interval ending after one time and at or before another, and no more', () => {
    expect(ends(spec('hour'), '2026-03-01T10:20:00Z', '2026-03-01T13:00:00Z')).toEqual([
      '2026-03-01T10:00:00.000Z 2026-03-01T11:00:00.000Z',
      '2026-03-01T11:00:00.000Z 2026-03-01T12:00:00.000Z',
      '2026-03-01T12:00:00.000Z 2026-03-01T13:00:00.000Z',
    ]);
    expect(ends(spec('hour'), '2026-03-01T11:00:00Z', '2026-03-01T11:59:00Z')).toEqual([]);
    expect(ends(spec('every 5 minutes'), '2026-03-01T10:00:00Z', '2026-03-01T10:10:00Z')).toHaveLength(2);
  });

  it('tiles a range without gaps or overlaps across a change of the clocks', () => {
    const intervals = intervalsEndingIn(spec('hour', 'America/New_York'), new Date('2026-11-01T00:00:00Z'), new Date('2026-11-02T00:00:00Z'));
    expect(intervals).toHaveLength(24);
    for (let i = 1; i < intervals.length; i++) expect(intervals[i]!.start).toEqual(intervals[i - 1]!.end);
    const days = intervalsEndingIn(spec('day', 'America/New_York'), new Date('2026-10-30T12:00:00Z'), new Date('2026-11-03T12:00:00Z'));
    expect(days.map(({ end }) => iso(end))).toEqual(['2026-10-31T04:00:00.000Z', '2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z', '2026-11-03T05:00:00.000Z']);
  });
});
