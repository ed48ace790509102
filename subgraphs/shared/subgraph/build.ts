import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { lexicographicSortSchema, parse, type GraphQLSchema } from 'graphql';
import { buildSchema, type AuthChecker } from 'type-graphql';
import { requireScopes } from '../auth/auth-checker.js';
import type { RequiredScope } from '../auth/scopes.js';
import type { SubgraphContext } from './context.js';
import { DateTimeScalar } from './scalars.js';
import type { SubgraphDefinition } from './define.js';
import { endingOnLoss } from './events-lost.js';
import { fieldResolvers } from './property-fields.js';

/**
 * `@Authorized(...scopes)`: the caller needs every listed scope. INTERNAL is met only by the router's
 * own service actor; an empty list means "any authenticated caller".
 */
const scopeAuthChecker: AuthChecker<SubgraphContext, RequiredScope> = ({ context }, required) => {
  requireScopes(context.actor, required);
  return true;
};

/** Federation 2 directives every subgraph may use. */
const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@inaccessible", "@external", "@requires", "@provides"])';

/**
 * Subscriptions take their pub/sub from the request context (`subscribe` option of
 * `@Subscription`), so that one built schema serves any pub/sub; type-graphql still wants a
 * schema-level one, which must never be reached.
 */
const contextPubSubOnly = {
  publish: () => {
    throw new Error('publish through context.pubsub');
  },
  subscribe: () => {
    throw new Error('@Subscription needs a `subscribe` option that uses context.pubsub');
  },
};

const built = new WeakMap<SubgraphDefinition, Promise<GraphQLSchema>>();

/**
 * The executable federated schema of a subgraph: type-graphql builds the types and resolvers,
 * `@apollo/subgraph` adds `_service`, `_entities` and the reference resolvers. Built once per
 * definition and process.
 */
export function buildSubgraphGraphQLSchema(subgraph: SubgraphDefinition): Promise<GraphQLSchema> {
  let schema = built.get(subgraph);
  if (!schema) {
    schema = build(subgraph);
    built.set(subgraph, schema);
  }
  return schema;
}

/** The subgraph's SDL as composition reads it (what `schema/subgraphs/<name>.graphql` holds). */
export async function buildSubgraphSdl(subgraph: SubgraphDefinition): Promise<string> {
  return printSubgraphSchema(await buildSubgraphGraphQLSchema(subgraph));
}

async function build(subgraph: SubgraphDefinition): Promise<GraphQLSchema> {
  const typeGraphqlSchema = await buildSchema({
    resolvers: subgraph.resolvers,
    orphanedTypes: subgraph.orphanedTypes,
    authChecker: scopeAuthChecker,
    authMode: 'error',
    pubSub: contextPubSubOnly,
    validate: false,
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
  });
  const sorted = lexicographicSortSchema(typeGraphqlSchema);
  const typeDefs = parse(`${FEDERATION_LINK}\n\n${printSchemaWithDirectives(sorted)}`);
  // No global middlewares above: a field that reads its property needs only its `@Authorized` check.
  const resolvers = fieldResolvers<SubgraphContext>(typeGraphqlSchema, ({ actor }, roles) => requireScopes(actor, roles as RequiredScope[]));
  for (const [typeName, resolveReference] of Object.entries(subgraph.references ?? {})) {
    resolvers[typeName] = { ...resolvers[typeName], __resolveReference: resolveReference };
  }
  return endingOnLoss(buildSubgraphSchema({ typeDefs, resolvers: resolvers as never }));
}
