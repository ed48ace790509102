import { describe, expect, it } from 'vitest';
import { dueIntervals } from './export-intervals.js';

const at = (iso: string) => new Date(iso);
const base = { interval: 'hour', interval_offset: null, timezone: 'UTC', start_at: null, end_at: null };

describe('dueIntervals', () => {
  it('starts where the last scheduled run ended, even when the interval changed since', () => {
    // An hourly export switched to daily at 10:00: the first daily run covers 10:00 to midnight only.
    const intervals = dueIntervals({ ...base, interval: 'day', scheduled_until: at('2026-03-01T10:00:00Z') }, at('2026-03-03T01:00:00Z'));
    expect(intervals.map(({ start, end }) => [start.toISOString(), end.toISOString()])).toEqual([
      ['2026-03-01T10:00:00.000Z', '2026-03-02T00:00:00.000Z'],
      ['2026-03-02T00:00:00.000Z', '2026-03-03T00:00:00.000Z'],
    ]);
  });

  it('begins at a start_at moved far past the schedule, and misses no interval after it', () => {
    const intervals = dueIntervals({ ...base, interval: 'every 5 minutes', scheduled_until: at('2026-03-01T00:00:00Z'), start_at: at('2026-03-05T00:02:00Z') }, at('2026-03-05T00:15:00Z'));
    expect(intervals.map(({ start, end }) => `${start.toISOString()} ${end.toISOString()}`)).toEqual([
      '2026-03-05T00:00:00.000Z 2026-03-05T00:05:00.000Z',
      '2026-03-05T00:05:00.000Z 2026-03-05T00:10:00.000Z',
      '2026-03-05T00:10:00.000Z 2026-03-05T00:15:00.000Z',
    ]);
  });

  it('makes no run ending after end_at, nor at or before start_at', () => {
    const ended = dueIntervals({ ...base, scheduled_until: at('2026-03-01T00:00:00Z'), end_at: at('2026-03-01T02:30:00Z') }, at('2026-03-01T06:00:00Z'));
    expect(ended.map(({ end }) => end.toISOString())).toEqual(['2026-03-01T01:00:00.000Z', '2026-03-01T02:00:00.000Z']);
    const later = dueIntervals({ ...base, scheduled_until: at('2026-03-01T00:00:00Z'), start_at: at('2026-03-01T02:00:00Z') }, at('2026-03-01T04:00:00Z'));
    expect(later.map(({ end }) => end.toISOString())).toEqual(['2026-03-01T03:00:00.000Z', '2026-03-01T04:00:00.000Z']);
  });
});
