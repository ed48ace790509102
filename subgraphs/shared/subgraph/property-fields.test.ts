import 'reflect-metadata';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { parse, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { Authorized, buildSchema, Field, FieldResolver, Int, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { fieldResolvers, propertyFields } from './property-fields.js';

@ObjectType()
abstract class Base {
  @Field(() => Int)
  count!: number;
}

@ObjectType('Widget')
class Widget extends Base {
  @Field()
  name!: string;

  @Authorized('widget:read')
  @Field({ nullable: true })
  secret!: string;

  @Field({ name: 'label' })
  title!: string;

  @Field()
  shown!: string;
}

/** Another subgraph's stub of the same type: only `name`, never built here. */
@ObjectType('Widget')
class WidgetStub {
  @Field()
  name!: string;
}

@Resolver(() => Widget)
class WidgetResolver {
  @Query(() => Widget)
  widget(): Widget {
    return Object.assign(new Widget(), { count: 3, name: 'w', secret: 's', title: 't', shown: 'raw' });
  }

  @FieldResolver(() => String)
  shown(@Root() widget: Widget): string {
    return `${widget.shown}!`;
  }
}

let schema: GraphQLSchema;
interface Context {
  scopes: string[];
}

beforeAll(async () => {
  schema = await buildSchema({ resolvers: [WidgetResolver], orphanedTypes: [], authChecker: () => false, validate: false });
  void WidgetStub;
});

describe(propertyFields.name, () => {
  it('names the fields that only read their property, inherited ones and those behind @Authorized included', () => {
    expect(propertyFields(schema).get('Widget')).toEqual(
      new Map<string, unknown>([
        ['count', undefined],
        ['name', undefined],
        ['secret', ['widget:read']],
      ]),
    );
  });

  it('leaves every other resolver, so that a compiled query answers as before: roles, a renamed property, a field resolver', async () => {
    // As build.ts makes a subgraph: the printed types with the resolvers that are left.
    const guard = ({ scopes }: Context, roles: readonly unknown[]) => {
      if (!roles.every((role) => scopes.includes(role as string))) throw new Error(`missing ${roles.join()}`);
    };
    const subgraph = buildSubgraphSchema({ typeDefs: parse(printSchemaWithDirectives(schema)), resolvers: fieldResolvers(schema, guard) as never });
    const run = async (query: string, scopes: string[] = []) => {
      const compiled = compileQuery(subgraph, parse(query));
      if (!isCompiledQuery(compiled)) throw new Error(JSON.stringify(compiled));
      return JSON.parse(JSON.stringify(await compiled.query(undefined, { scopes }, {}))) as Record<string, unknown>;
    };
    expect(await run('{ widget { count name label shown } }')).toEqual({ data: { widget: { count: 3, name: 'w', label: 't', shown: 'raw!' } } });
    expect(await run('{ widget { secret } }', ['widget:read'])).toEqual({ data: { widget: { secret: 's' } } });
    const refused = (await run('{ widget { name secret } }')) as { data: unknown; errors?: { message: string; path: unknown }[] };
    expect(refused.data).toEqual({ widget: { name: 'w', secret: null } });
    expect(refused.errors).toMatchObject([{ message: 'missing widget:read', path: ['widget', 'secret'] }]);
  });
});
