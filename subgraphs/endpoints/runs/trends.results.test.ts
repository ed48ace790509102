import { describe, expect, it } from 'vitest';
import { trendsResults } from './trends.results.js';

const node = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day' };
const columns = [
  { name: 'day', type: 'DateTime' as const },
  { name: 'breakdown_value', type: 'String' as const },
  { name: 'count', type: 'Integer' as const },
];

describe('trendsResults', () => {
  it("answers PostHog's series over the same days, 0 where a series had nothing, largest first", () => {
    const rows = [
      ['2026-01-05T00:00:00Z', 'Firefox', 1],
      ['2026-01-05T00:00:00Z', 'Chrome', 2],
      ['2026-01-06T00:00:00Z', 'Chrome', 3],
    ];
    expect(trendsResults(node, columns, rows)).toEqual([
      {
        action: { id: '$pageview', type: 'events', order: 0, name: '$pageview', custom_name: null, math: 'total' },
        label: '$pageview',
        count: 5,
        data: [2, 3],
        days: ['2026-01-05', '2026-01-06'],
        labels: ['5-Jan-2026', '6-Jan-2026'],
        breakdown_value: 'Chrome',
      },
      expect.objectContaining({ breakdown_value: 'Firefox', data: [1, 0], count: 1 }),
    ]);
  });

  it("names days and hours by the environment's clock", () => {
    // Local midnight in Berlin is 23:00 UTC the day before.
    const berlin = trendsResults(node, columns, [['2026-01-04T23:00:00Z', 'Chrome', 1]], 'Europe/Berlin');
    expect(berlin[0]).toMatchObject({ days: ['2026-01-05'], labels: ['5-Jan-2026'] });
    const hourly = trendsResults({ ...node, interval: 'hour' }, [{ name: 'hour', type: 'DateTime' }, { name: 'count', type: 'Integer' }], [['2026-01-05T09:00:00Z', 4]], 'Europe/Berlin');
    expect(hourly[0]).toMatchObject({ days: ['2026-01-05 10:00:00'], labels: ['5-Jan 10:00'], data: [4] });
    expect(hourly[0]).not.toHaveProperty('breakdown_value');
  });

  it('keeps week and month buckets, which are dates already', () => {
    const weekly = trendsResults({ ...node, interval: 'week' }, [{ name: 'week', type: 'Date' }, { name: 'count', type: 'Integer' }], [['2026-01-04', 7]], 'America/New_York');
    expect(weekly[0]).toMatchObject({ days: ['2026-01-04'], labels: ['4-Jan-2026'] });
  });

  it("fills every bucket of the query's range, by day, month or hour", () => {
    const daily = trendsResults(node, columns, [['2026-01-06T00:00:00Z', 'Chrome', 3]], 'UTC', { first: '2026-01-05T00:00:00Z', last: '2026-01-08T00:00:00Z' });
    expect(daily[0]).toMatchObject({ days: ['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08'], data: [0, 3, 0, 0] });
    const monthly = trendsResults({ ...node, interval: 'month' }, [{ name: 'month', type: 'Date' }, { name: 'count', type: 'Integer' }], [['2026-02-01', 1]], 'UTC', { first: '2025-12-01', last: '2026-03-01' });
    expect(monthly[0]).toMatchObject({ days: ['2025-12-01', '2026-01-01', '2026-02-01', '2026-03-01'], data: [0, 0, 1, 0] });
    const hourly = trendsResults({ ...node, interval: 'hour' }, [{ name: 'hour', type: 'DateTime' }, { name: 'count', type: 'Integer' }], [], 'UTC', { first: '2026-01-05T22:00:00Z', last: '2026-01-06T01:00:00Z' });
    expect(hourly).toMatchObject([{ data: [0, 0, 0, 0], days: ['2026-01-05 22:00:00', '2026-01-05 23:00:00', '2026-01-06 00:00:00', '2026-01-06 01:00:00'], count: 0 }]);
  });
});
