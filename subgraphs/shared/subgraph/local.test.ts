import { ApolloServer, HeaderMap } from '@apollo/server';
import { buildSchema, parse, type GraphQLFormattedError } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../auth/actor.js';
import type { SubgraphContext } from '../context.js';
import { NotFoundError } from '../errors.js';
import { localSubgraph } from './local.js';

const schema = buildSchema(`
  enum Scope { person group }
  type Query {
    answer(limit: Int!, scope: Scope): Int
    missing: String
    broken: String
    labelled: String
  }
`);
const resolvers: Record<string, (args: { limit: number }) => unknown> = {
  answer: ({ limit }) => limit * 2,
  missing: () => {
    throw new NotFoundError();
  },
  broken: () => {
    throw new Error('connection reset at 10.0.0.3');
  },
  labelled: () => {
    throw Object.assign(new Error('teapot'), { extensions: { code: 'I_AM_A_TEAPOT', http: { status: 418 } } });
  },
};
for (const [name, resolve] of Object.entries(resolvers)) schema.getQueryType()!.getFields()[name]!.resolve = (_root, args) => resolve(args as { limit: number });

/** What each way hands `formatError` is what it answers: compared as it is. */
const formatError = (formatted: GraphQLFormattedError) => formatted;
const actor = { kind: 'user' } as unknown as Actor;
const contextFor = () => ({ actor }) as unknown as SubgraphContext;

const operations: [string, string, Record<string, unknown>?][] = [
  ['a result', 'query($l: Int!) { answer(limit: $l) }', { l: 21 }],
  ['a typed error', '{ missing }'],
  ['an unexpected error, beside data', '{ answer(limit: 1) broken }'],
  ['an error with its own code and an HTTP status', '{ labelled }'],
  ['a variable of the wrong type', 'query($l: Int!) { answer(limit: $l) }', { l: 'many' }],
  ['a missing variable', 'query($l: Int!) { answer(limit: $l) }', {}],
  ['a value not in an enum', 'query($s: Scope) { answer(limit: 1, scope: $s) }', { s: 'team' }],
  ['a field the schema lacks', '{ answer(limit: 1) nothing }'],
];

describe(localSubgraph.name, () => {
  it.each(operations)('answers %s as Apollo Server answers it over HTTP', async (_label, query, variables) => {
    const apollo = new ApolloServer<SubgraphContext>({ schema, formatError, includeStacktraceInErrorResponses: false, csrfPrevention: false });
    await apollo.start();
    try {
      const http = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: 'POST', headers: new HeaderMap([['content-type', 'application/json']]), search: '', body: variables ? { query, variables } : { query } },
        context: async () => contextFor(),
      });
      const overHttp = JSON.parse(http.body.kind === 'complete' ? http.body.string : '') as unknown;
      const local = localSubgraph({ schema, contextFor, formatError });
      const inProcess = await local.execute({ document: parse(query), variables }, actor);
      expect(JSON.parse(JSON.stringify(inProcess))).toEqual(overHttp);
    } finally {
      await apollo.stop();
    }
  });

  it('validates each document once, and answers its errors every time', async () => {
    const local = localSubgraph({ schema, contextFor, formatError });
    const document = parse('{ nothing }');
    const first = await local.execute({ document }, actor);
    const second = await local.execute({ document }, actor);
    expect(first.errors).toHaveLength(1);
    expect(second).toEqual(first);
    expect(first.errors![0]!.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });
});
