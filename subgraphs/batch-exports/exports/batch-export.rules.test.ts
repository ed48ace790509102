import { describe, expect, it } from 'vitest';
import { checkDateTime, checkFilters, intervalOffset, offsetsOf } from './batch-export.rules.js';

describe('intervalOffset', () => {
  it("stores PostHog's offsets as seconds past the interval's start, and answers them back", () => {
    expect(intervalOffset('week', 3, 6, null)).toBe(3 * 86400 + 6 * 3600);
    expect(offsetsOf('week', 3 * 86400 + 6 * 3600)).toEqual({ offset_day: 3, offset_hour: 6 });
    expect(intervalOffset('day', undefined, 5, null)).toBe(5 * 3600);
    expect(offsetsOf('day', 5 * 3600)).toEqual({ offset_day: null, offset_hour: 5 });
    expect(intervalOffset('hour', undefined, undefined, null)).toBeNull();
    expect(offsetsOf('hour', null)).toEqual({ offset_day: null, offset_hour: null });
  });

  it('keeps a stored offset a PATCH does not name', () => {
    expect(intervalOffset('week', undefined, 9, 2 * 86400 + 3600)).toBe(2 * 86400 + 9 * 3600);
  });

  it("refuses offsets the interval has no place for, in PostHog's words", () => {
    expect(() => intervalOffset('day', 1, null, null)).toThrow('offset_day should not be specified for daily intervals');
    expect(() => intervalOffset('hour', 1, null, null)).toThrow('offset_day is not applicable for non-daily/weekly intervals');
    expect(() => intervalOffset('every 5 minutes', null, 1, null)).toThrow('offset_hour is not applicable for non-daily/weekly intervals');
    expect(() => intervalOffset('week', 7, null, null)).toThrow('less than or equal to 6');
    expect(() => intervalOffset('day', null, -1, null)).toThrow('greater than or equal to 0');
  });
});

describe('checkDateTime', () => {
  it('reads ISO 8601 as DRF does (no zone is UTC) and refuses anything else', () => {
    expect(checkDateTime('2026-01-05T10:00:00Z', 'start_at')).toEqual(new Date('2026-01-05T10:00:00Z'));
    expect(checkDateTime('2026-01-05 10:00', 'start_at')).toEqual(new Date('2026-01-05T10:00:00Z'));
    expect(checkDateTime('2026-01-05T10:00:00+02:00', 'start_at')).toEqual(new Date('2026-01-05T08:00:00Z'));
    expect(checkDateTime(null, 'start_at')).toBeNull();
    expect(checkDateTime(undefined, 'start_at')).toBeUndefined();
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-02-30', 12]) expect(() => checkDateTime(bad, 'start_at'), String(bad)).toThrow('Datetime has wrong format');
  });
});

describe('checkFilters', () => {
  it("takes PostHog's property filters and refuses other shapes in its words", () => {
    expect(checkFilters([{ key: '$browser', type: 'event', operator: 'exact', value: 'Chrome' }])).toHaveLength(1);
    expect(() => checkFilters({})).toThrow("'filters' should be an array of filters");
    expect(() => checkFilters(['x'])).toThrow('Each filter must be an object');
    expect(() => checkFilters([{ key: 'x', type: 'cohort' }])).toThrow("Each filter must have a 'type' of one of: event, person");
    expect(() => checkFilters([{ key: 'data_interval_start', type: 'event' }])).toThrow('are run attributes and not');
  });
});
