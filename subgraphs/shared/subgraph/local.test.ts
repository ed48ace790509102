import { ApolloServer, HeaderMap } from '@apollo/server';
import { buildSchema, parse, type GraphQLFormattedError, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../auth/actor.js';
import type { SubgraphContext } from './context.js';
import { NotFoundError } from '../errors.js';
import { localSubgraph } from './local.js';

const schema = buildSchema(`
  enum Scope { person group }
  type Item { id: Int! name: String! tag: String }
  type Query {
    answer(limit: Int!, scope: Scope): Int
    missing: String
    broken: String
    labelled: String
    items(n: Int = 3): [Item]
    strict: String!
  }
  type Mutation { double(limit: Int!): Int }
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
// A list whose second item breaks a non-null field and whose third fails a nullable one; a non-null root field that is null.
schema.getQueryType()!.getFields().items!.resolve = (_root, { n }: { n: number }) =>
  Array.from({ length: n }, (_, index) => ({ id: index + 1, name: index === 1 ? null : `item ${index + 1}`, tag: index === 2 ? new Error('no tag') : 'tagged' }));
(schema.getType('Item') as GraphQLObjectType).getFields().tag!.resolve = (item: { tag: unknown }) => (item.tag instanceof Error ? Promise.reject(item.tag) : item.tag);
schema.getQueryType()!.getFields().strict!.resolve = () => null;
schema.getMutationType()!.getFields().double!.resolve = (_root, { limit }: { limit: number }) => limit * 2;

/** What each way hands `formatError` is what it answers: compared as it is. */
const formatError = (formatted: GraphQLFormattedError) => formatted;
const actor = { kind: 'user' } as unknown as Actor;
const contextFor = () => ({ actor }) as unknown as SubgraphContext;

const operations: [string, string, Record<string, unknown>?, string?][] = [
  ['a result', 'query($l: Int!) { answer(limit: $l) }', { l: 21 }],
  ['a typed error', '{ missing }'],
  ['an unexpected error, beside data', '{ answer(limit: 1) broken }'],
  ['an error with its own code and an HTTP status', '{ labelled }'],
  ['a variable of the wrong type', 'query($l: Int!) { answer(limit: $l) }', { l: 'many' }],
  ['a missing variable', 'query($l: Int!) { answer(limit: $l) }', {}],
  ['a value not in an enum', 'query($s: Scope) { answer(limit: 1, scope: $s) }', { s: 'team' }],
  ['a field the schema lacks', '{ answer(limit: 1) nothing }'],
  // Queries run compiled: their nulls, paths, aliases, fragments and directives must come out as graphql-js makes them.
  ['a list with a null where none may be and a failing field', '{ items { id name tag } }'],
  ['aliases, a fragment, __typename and skip/include', 'query($on: Boolean!) { first: items(n: 1) { ...parts } all: items @include(if: $on) { id } none: items @skip(if: $on) { id } } fragment parts on Item { __typename id ident: id }', { on: true }],
  ['a non-null root field that is null', '{ answer(limit: 2) strict }'],
  ['a default value of an argument, then a variable of another operation', 'query A { items { id } } query B($l: Int!) { answer(limit: $l) }', { l: 4 }, 'B'],
  ['a mutation', 'mutation($l: Int!) { double(limit: $l) }', { l: 5 }],
];

/**
 * A result with its errors in path order: a compiled query lists the nulls it met where none may be
 * after the errors resolvers threw, graphql-js as it meets them; GraphQL leaves the order open.
 */
function inPathOrder(result: unknown): unknown {
  const { errors } = result as { errors?: { path?: unknown }[] };
  if (!errors) return result;
  return { ...(result as object), errors: errors.toSorted((a, b) => JSON.stringify(a.path ?? null).localeCompare(JSON.stringify(b.path ?? null))) };
}

describe(localSubgraph.name, () => {
  it.each(operations)('answers %s as Apollo Server answers it over HTTP', async (_label, query, variables, operationName) => {
    const apollo = new ApolloServer<SubgraphContext>({ schema, formatError, includeStacktraceInErrorResponses: false, csrfPrevention: false });
    await apollo.start();
    try {
      const http = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: 'POST', headers: new HeaderMap([['content-type', 'application/json']]), search: '', body: { query, ...(variables && { variables }), ...(operationName && { operationName }) } },
        context: async () => contextFor(),
      });
      const overHttp = JSON.parse(http.body.kind === 'complete' ? http.body.string : '') as unknown;
      const local = localSubgraph({ schema, contextFor, formatError });
      const inProcess = await local.execute({ document: parse(query), variables, operationName }, actor);
      expect(inPathOrder(JSON.parse(JSON.stringify(inProcess)))).toEqual(inPathOrder(overHttp));
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
