import { buildSchema, execute, parse, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { selectedFields } from './references.js';

const schema = buildSchema(`
  interface Named { name: String }
  type Project implements Named { id: Int, name: String, api_token: String, organization: Organization }
  type Organization implements Named { id: ID, name: String, slug: String }
  union Entity = Project | Organization
  type Query { entities: [Entity] }
`);

/** The resolve info of `entities` for a query, as the reference resolvers under `_entities` get it. */
async function infoOf(query: string): Promise<GraphQLResolveInfo> {
  let captured: GraphQLResolveInfo | undefined;
  await execute({
    schema,
    document: parse(query),
    fieldResolver: (_source, _args, _context, info) => {
      captured ??= info;
      return [];
    },
  });
  return captured!;
}

describe(selectedFields.name, () => {
  it("reads the fields of the type's own fragments, inline or named, and leaves out another type's", async () => {
    const info = await infoOf(`
      { entities { __typename ... on Project { id name } ...more ... on Organization { slug } } }
      fragment more on Project { organization { id } }
    `);
    expect(selectedFields(info, 'Project')).toEqual(new Set(['__typename', 'id', 'name', 'organization']));
    expect(selectedFields(info, 'Organization')).toEqual(new Set(['__typename', 'slug']));
  });

  it('counts fragments on an interface or union, which may apply', async () => {
    const info = await infoOf('{ entities { ... on Named { name } ... on Entity { ... on Project { api_token } } } }');
    expect(selectedFields(info, 'Project')).toEqual(new Set(['name', 'api_token']));
  });
});
