import { buildSchema, type DocumentNode } from 'graphql';
import { createSofa, createSofaRouter } from 'sofa-api';
import { describe, expect, it } from 'vitest';
import { withBodyFields } from './body-fields.js';

const schema = buildSchema(`
  scalar JSON
  input Filter { name: String }
  type Query { noop: Boolean }
  type Mutation {
    save(project_id: Int!, name: String, count: Int, flag: Boolean, tags: [String], filter: Filter, data: JSON): Boolean
  }
`);

/** SOFA over the schema; each call answers the variables the operation got, or the error SOFA answered. */
function sofaRouter() {
  return createSofaRouter(
    createSofa({
      basePath: '/api',
      schema,
      routes: { 'Mutation.save': { method: 'POST', path: '/projects/:project_id/save' } },
      execute: (async (args: { document: DocumentNode; variableValues?: Record<string, unknown>; contextValue: { fields?: Record<string, unknown> } }) => ({
        data: { save: withBodyFields(schema, args.document, args.variableValues ?? {}, args.contextValue.fields) },
      })) as never,
      errorHandler: (errors: readonly { message: string; extensions?: { http?: { status?: number } } }[]) =>
        Response.json({ error: errors[0]?.message, status: errors[0]?.extensions?.http?.status }, { status: 400 }) as never,
    }),
  );
}

/** What the operation got: from SOFA reading the JSON text itself, and from the fields handed over. */
async function bothWays(body: Record<string, unknown>, query = ''): Promise<[unknown, unknown]> {
  const router = sofaRouter();
  const url = `http://rest/api/projects/7/save${query}`;
  const headers = { 'content-type': 'application/json' };
  const bySofa = await router.fetch(new Request(url, { method: 'POST', headers, body: JSON.stringify(body) }));
  const handedOver = await router.fetch(new Request(url, { method: 'POST' }), { fields: body });
  return [await bySofa.json(), await handedOver.json()];
}

describe(withBodyFields.name, () => {
  it.each([
    ['values of every kind', { name: 'n', count: 3, flag: true, tags: ['a', 'b'], filter: { name: 'f' }, data: { deep: [1, { x: null }] } }, ''],
    ['a Boolean sent as text, a single value for a list', { flag: 'true', tags: 'one' }, ''],
    ['a number for a String, a numeric text for an Int', { name: 5, count: '12' }, ''],
    ['an input object sent as JSON text', { filter: '{"name": "text"}' }, ''],
    ['a path parameter and a query parameter over the body', { project_id: 99, name: 'body' }, '?name=query'],
    ['an empty query parameter, which leaves the body', { name: 'body' }, '?name='],
    ['a value an Int refuses', { count: 'many' }, ''],
    ['a list item a String refuses', { tags: ['a', null] }, ''],
    ['an input object that is not JSON', { filter: '{' }, ''],
  ])('reads %s as SOFA reads the JSON text', async (_label, body, query) => {
    const [bySofa, handedOver] = await bothWays(body, query);
    expect(handedOver).toEqual(bySofa);
  });

  it('keeps a null field as an explicit null, where SOFA drops it, and leaves a path parameter alone', async () => {
    const [bySofa, handedOver] = await bothWays({ name: null, project_id: null, count: 1 });
    expect(bySofa).toEqual({ project_id: 7, count: 1 });
    expect(handedOver).toEqual({ project_id: 7, name: null, count: 1 });
  });
});
