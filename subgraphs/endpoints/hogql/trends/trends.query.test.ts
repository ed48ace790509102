import { describe, expect, it } from 'vitest';
import { compileHogQL } from '../compile/hogql.compiler.js';
import { MAX_LIMIT } from '../hogql.limits.js';
import { trendsToHogQL } from './trends.query.js';

const pageviews = { kind: 'EventsNode', event: '$pageview' };

function compileTrends(query: Record<string, unknown>) {
  return compileHogQL(trendsToHogQL(query), { variables: {} });
}

describe('trendsToHogQL', () => {
  it('counts a series per day of the last seven days by default', () => {
    const compiled = compileTrends({ kind: 'TrendsQuery', series: [pageviews] });
    expect(compiled.columns).toEqual([
      { name: 'day', type: 'DateTime' },
      { name: 'count', type: 'Integer' },
    ]);
    expect(compiled.sql).toContain('date_trunc(\'day\', "_t1"."timestamp", $1::text) AS "_c1", count(*) AS "_c2"');
    expect(compiled.sql).toContain('("_t1"."event" = $2::text)');
    expect(compiled.sql).toContain('"_t1"."timestamp" >= date_trunc(\'day\', (((now() AT TIME ZONE $1::text) - (($3::bigint) * interval \'1 day\')) AT TIME ZONE $1::text), $1::text)');
    expect(compiled.values.slice(1, 3)).toEqual(['$pageview', 7]);
    expect(compiled.limit).toBe(MAX_LIMIT);
  });

  it('buckets by the interval asked, weeks starting on Sunday', () => {
    const compiled = compileTrends({ kind: 'TrendsQuery', series: [pageviews], interval: 'week' });
    expect(compiled.columns[0]).toEqual({ name: 'week', type: 'Date' });
    expect(compiled.sql).toContain('extract(dow from');
  });

  it('breaks down by an event or person property', () => {
    const byEvent = compileTrends({ kind: 'TrendsQuery', series: [pageviews], breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } });
    expect(byEvent.columns.map((column) => column.name)).toEqual(['day', 'breakdown_value', 'count']);
    expect(byEvent.sql).toContain('GROUP BY date_trunc(\'day\', "_t1"."timestamp", $1::text), ("_t1"."properties" ->> $');
    const byPerson = compileTrends({ kind: 'TrendsQuery', series: [pageviews], breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } });
    expect(byPerson.sql).toContain('"_t1_pdi_person"."properties" ->>');
  });

  it('counts unique persons for dau', () => {
    const compiled = compileTrends({ kind: 'TrendsQuery', series: [{ ...pageviews, math: 'dau' }] });
    expect(compiled.sql).toContain('count(DISTINCT "_t1_pdi"."person_id")');
  });

  it('aggregates a property for property maths', () => {
    const compiled = compileTrends({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'purchase', math: 'p90', math_property: 'amount' }] });
    expect(compiled.columns[1]).toEqual({ name: 'value', type: 'Float' });
    expect(compiled.sql).toContain('percentile_cont($');
  });

  it('puts several series in one table, led by their index', () => {
    const compiled = compileTrends({ kind: 'TrendsQuery', series: [pageviews, { kind: 'EventsNode', event: 'signup' }] });
    expect(compiled.columns.map((column) => column.name)).toEqual(['series', 'day', 'count']);
    expect(compiled.sql).toContain(') UNION ALL (');
    expect(compiled.sql).toMatch(/ORDER BY "_c1" ASC NULLS LAST, "_c2" ASC NULLS LAST LIMIT \$\d+::bigint$/);
  });

  it('filters by property filters and groups of them', () => {
    const compiled = compileTrends({
      kind: 'TrendsQuery',
      series: [{ ...pageviews, properties: [{ key: '$os', value: 'Mac', operator: 'exact', type: 'event' }] }],
      properties: {
        type: 'OR',
        values: [
          { key: '$browser', value: ['Chrome', 'Safari'], operator: 'exact', type: 'event' },
          { key: 'email', value: 'example.com', operator: 'icontains', type: 'person' },
          { key: 'amount', value: 10, operator: 'gt' },
          { key: 'ref', operator: 'is_set' },
        ],
      },
    });
    expect(compiled.sql).toContain('= ANY($');
    expect(compiled.sql).toContain('ILIKE');
    expect(compiled.sql).toContain('IS NOT NULL');
    expect(compiled.values).toEqual(expect.arrayContaining([['Chrome', 'Safari'], '%example.com%', 'Mac', 10]));
  });

  it('reads absolute and relative date ranges', () => {
    const absolute = compileTrends({ kind: 'TrendsQuery', series: [pageviews], dateRange: { date_from: '2024-01-01', date_to: '2024-01-31' } });
    expect(absolute.values).toEqual(expect.arrayContaining(['2024-01-01', '2024-01-31']));
    const all = compileTrends({ kind: 'TrendsQuery', series: [pageviews], dateRange: { date_from: 'all' } });
    expect(all.sql).not.toContain('>=');
    const monthStart = compileTrends({ kind: 'TrendsQuery', series: [pageviews], dateRange: { date_from: 'mStart' } });
    expect(monthStart.sql).toContain("date_trunc('month', (now() AT TIME ZONE");
  });

  it.each([
    [{ kind: 'FunnelsQuery', series: [pageviews] }, 'Unsupported query kind: FunnelsQuery'],
    [{ kind: 'TrendsQuery', series: [] }, 'A TrendsQuery needs at least one series'],
    [{ kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: 1 }] }, 'Unsupported series kind: ActionsNode'],
    [{ kind: 'TrendsQuery', series: [{ ...pageviews, math: 'weekly_active' }] }, 'Unsupported math: weekly_active'],
    [{ kind: 'TrendsQuery', series: [{ ...pageviews, math: 'sum' }] }, 'A sum math_property needs a property key'],
    [{ kind: 'TrendsQuery', series: [pageviews], interval: 'decade' }, 'Unsupported interval: decade'],
    [{ kind: 'TrendsQuery', series: [pageviews], dateRange: { date_from: 'last tuesday' } }, 'Invalid date_from: last tuesday'],
    [{ kind: 'TrendsQuery', series: [pageviews], breakdownFilter: { breakdown: 'x', breakdown_type: 'cohort' } }, 'Unsupported breakdown type: cohort'],
    [{ kind: 'TrendsQuery', series: [pageviews], properties: [{ key: 'x', operator: 'is_date_before', value: '2024' }] }, 'Unsupported property operator: is_date_before'],
  ])('refuses %j', (query, message) => {
    expect(() => trendsToHogQL(query)).toThrow(message);
  });
});
