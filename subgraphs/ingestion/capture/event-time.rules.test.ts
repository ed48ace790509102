import { describe, expect, it } from 'vitest';
import { formatEventTime, MAX_FUTURE_MS, parseIsoTime, storedTime } from './event-time.rules.js';

const at = (text: string) => formatEventTime(parseIsoTime(text)!);

describe('parseIsoTime', () => {
  it.each([
    ['2024-05-01T12:00:00.123Z', '2024-05-01T12:00:00.123000Z'],
    ['2024-05-01T12:00:00.123456Z', '2024-05-01T12:00:00.123456Z'],
    ['2024-05-01T12:00:00.1234567Z', '2024-05-01T12:00:00.123456Z'],
    ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000000Z'],
    ['2024-05-01T12:00:00', '2024-05-01T12:00:00.000000Z'],
    ['2024-05-01 12:00:00.5', '2024-05-01T12:00:00.500000Z'],
    ['2024-05-01T14:00:00+02:00', '2024-05-01T12:00:00.000000Z'],
    ['2024-05-01T09:30:00-0230', '2024-05-01T12:00:00.000000Z'],
    ['2024-05-02T11:59:00+23:59', '2024-05-01T12:00:00.000000Z'],
    ['2024-05-01T12:00Z', '2024-05-01T12:00:00.000000Z'],
    ['2024-05-01', '2024-05-01T00:00:00.000000Z'],
    ['2024-02-29T00:00:00.000Z', '2024-02-29T00:00:00.000000Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000000Z'],
  ])('reads %s as %s', (text, canonical) => {
    expect(at(text)).toBe(canonical);
  });

  it.each([
    'yesterday',
    '2024-05-01T25:00:00Z',
    '2024-02-30T00:00:00.000Z',
    '2023-02-29T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-05-01T12:60:00Z',
    '1969-12-31T23:59:59Z',
    '12345',
    '2024-05-01T12:00:00+2',
    '2024-01-01T00:00:00+99:99',
    '2024-01-01T00:00:00+2400',
    '2024-01-01T00:00:00-05:60',
    '',
  ])('refuses %j', (text) => {
    expect(parseIsoTime(text)).toBeNull();
  });
});

describe('storedTime', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  const time = parseIsoTime('2026-11-23T11:00:00.123456Z')!;

  it('keeps the time as sent without sent_at', () => {
    expect(formatEventTime(storedTime(time, null, now))).toBe('2026-11-23T11:00:00.123456Z');
  });

  it("corrects the client's clock skew, rounded to five minutes, as PostHog's capture does", () => {
    const clientAhead = parseIsoTime('2026-11-23T13:01:00Z')!;
    expect(formatEventTime(storedTime(time, clientAhead, now))).toBe('2026-11-23T10:00:00.123456Z');
    const smallSkew = parseIsoTime('2026-11-23T12:02:00Z')!;
    expect(formatEventTime(storedTime(time, smallSkew, now))).toBe('2026-11-23T11:00:00.123456Z');
  });

  it('takes a time more than 23 hours ahead as now', () => {
    const future = { ms: now + MAX_FUTURE_MS + 1, micros: 5 };
    expect(storedTime(future, null, now)).toEqual({ ms: now, micros: 0 });
    const nearFuture = { ms: now + MAX_FUTURE_MS, micros: 5 };
    expect(storedTime(nearFuture, null, now)).toEqual(nearFuture);
  });
});
