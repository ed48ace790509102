import { describe, expect, it } from 'vitest';
import { call, compare, constant, field } from '../parse/hogql.builders.js';
import { trendsToHogQL } from '../trends/trends.query.js';
import { eventPropertiesRead } from './clickhouse.property-reads.js';

describe(eventPropertiesRead.name, () => {
  it('finds the top-level event properties a query reads, by field, by key and through an alias, not persons', () => {
    const ast = call('tuple', [
      field('properties', '$browser'),
      field('e', 'properties', '$os', 'version'),
      { node: 'ArrayAccess', array: field('events', 'properties'), property: constant('$current_url') },
      compare('==', field('person', 'properties', 'email'), constant('x')),
      field('properties'),
      field('event'),
    ]);
    expect([...eventPropertiesRead(ast)].sort()).toEqual(['$browser', '$current_url', '$os']);
  });

  it("reads a TrendsQuery's series filters, math property and breakdown through its HogQL", () => {
    const ast = trendsToHogQL({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview', math: 'sum', math_property: 'amount', properties: [{ key: '$os', value: 'Mac', operator: 'exact', type: 'event' }] }],
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
      properties: [{ key: 'email', value: 'x', operator: 'exact', type: 'person' }],
    });
    expect([...eventPropertiesRead(ast)].sort()).toEqual(['$browser', '$os', 'amount']);
  });
});
