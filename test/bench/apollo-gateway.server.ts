import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { GraphQLError } from 'graphql';
import { Authenticator } from '../../router/auth.js';
import { loadSupergraph } from '../../router/gateway.js';
import { ACTOR_HEADER, ActorSigner } from '../../subgraphs/shared/auth/actor.js';
import { AppError } from '../../subgraphs/shared/errors.js';

/** What each operation carries to the subgraph fetches: the actor, signed once per operation. */
interface GatewayContext {
  actorHeader: string;
}

/**
 * The baseline of the benchmark: `@apollo/gateway` over the committed supergraph and the subgraphs
 * of a running platform. It authenticates as our router does (same Authenticator, same signed
 * actor header, once per operation), so that only the gateway differs. Reads SECRET_KEY and
 * BENCH_SUBGRAPH_URLS (JSON, subgraph name → URL); prints `{"url":...}` once it listens.
 */
async function main(): Promise<void> {
  const subgraphUrls = JSON.parse(requiredEnv('BENCH_SUBGRAPH_URLS')) as Record<string, string>;
  const signer = new ActorSigner(requiredEnv('SECRET_KEY'));
  const authenticator = new Authenticator(signer, { accounts: subgraphUrls.accounts!, projects: subgraphUrls.projects! });
  const gateway = new ApolloGateway({
    supergraphSdl: loadSupergraph(subgraphUrls),
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<GatewayContext>({
        url,
        willSendRequest: ({ request, context }) => {
          request.http?.headers.set(ACTOR_HEADER, context.actorHeader);
        },
      }),
  });
  const server = new ApolloServer<GatewayContext>({ gateway });
  const { url } = await startStandaloneServer(server, {
    listen: { host: '127.0.0.1', port: 0 },
    context: async ({ req }) => {
      const actor = await authenticator.actorFor(req.headers.authorization).catch((error: unknown) => {
        throw asHttpError(error);
      });
      return { actorHeader: signer.sign(actor) };
    },
  });
  process.stdout.write(`${JSON.stringify({ url: new URL('graphql', url).toString() })}\n`);
  const stop = () => void server.stop().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** A bad key answers 401 as on our router; a lookup that fails is the server's fault. */
function asHttpError(error: unknown): GraphQLError {
  const status = error instanceof AppError ? error.status : 503;
  return new GraphQLError((error as Error).message, { extensions: { http: { status } } });
}

main().catch((error: unknown) => {
  process.stderr.write(`apollo gateway start-up failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
