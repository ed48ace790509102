import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../endpoints/endpoint.entity.js';
import { endpointOpenApi } from './endpoint-openapi.js';
import { prepareQuery } from '../queries/query.node.js';
import { hogql } from '../../../test/kit/endpoints.js';
import { redoclySpecProblems, swaggerParserError } from '../../../test/kit/openapi.js';

const endpoint = (name: string) => ({ name, description: '', environment_id: 7, current_version: 2 }) as unknown as Endpoint;

/** Queries whose documents differ in shape: every column type, variables with and without defaults, a trend. */
const QUERIES: [string, unknown, boolean][] = [
  [
    'columns-of-every-type',
    hogql(
      "select event, 1 as n, 1.5 as f, true as b, timestamp, toDate(timestamp) as d, uuid, properties, [1, 2] as a, tuple(1, 'x') as t, null as nothing, properties.$browser as anything from events where event = {variables.event_name} limit {variables.rows}",
      { a: { code_name: 'event_name', value: '$pageview' }, b: { code_name: 'rows', type: 'Number' } },
    ),
    false,
  ],
  ['one-type', hogql('select event from events'), false],
  ['trend', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }, false],
  ['trend-materialized', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }, true],
];

describe(endpointOpenApi.name, () => {
  it.each(QUERIES)('describes %s in a document both validators accept', async (name, query, materialized) => {
    const document = endpointOpenApi(endpoint(name), await prepareQuery(7, query), materialized);
    expect(await swaggerParserError(document)).toBeNull();
    expect(await redoclySpecProblems(document)).toEqual([]);
    expect(document).toMatchObject({ openapi: '3.0.3', servers: [{ url: '/' }] });
  });

  it("answers the contract's errors, 429 with Retry-After", async () => {
    const document = endpointOpenApi(endpoint('one-type'), await prepareQuery(7, hogql('select event from events')), false) as Record<string, never>;
    const operation = (document.paths as Record<string, { post: { responses: Record<string, { headers?: object; content?: object }> } }>)['/api/projects/7/endpoints/one-type/run']!.post;
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '404', '405', '429']);
    expect(operation.responses['429']!.headers).toHaveProperty('Retry-After');
    expect(operation.responses['404']!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/Error' } } });
  });
});
