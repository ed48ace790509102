import { resolve } from 'node:path';
import { defineConfig } from '@graphql-hive/gateway';
import { ActorSigner } from '../subgraphs/shared/auth/actor.js';
import { config } from '../subgraphs/shared/config.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { Authenticator } from './auth.js';
import { routerPlugins, SUBSCRIPTIONS_OVER_WS } from './gateway.js';
import { subgraphUrls } from './remote-subgraphs.js';
import { configuredKeyThrottle, useKeyThrottle } from './throttle.js';

/**
 * The Hive Gateway CLI as this platform's router, serving the committed supergraph unchanged:
 *
 *     node_modules/.bin/hive-gateway supergraph schema/supergraph.graphql -c dist/router/hive-gateway.config.js
 *
 * It takes the platform's settings (SECRET_KEY, REDIS_URL, the RATE_LIMIT_* rates, SUBGRAPH_URLS
 * when the subgraphs listen elsewhere than supergraph.yaml says) and the router's own plugins, so
 * a client sees the same keys, scopes, limits and errors on /graphql as through `npm start`.
 * It serves GraphQL and graphql-ws only; REST and /batch/ stay with `node dist/router/process/main.js`.
 */
const settings = config();
const log = createLogger(settings.LOG_LEVEL, 'hive-gateway');
const urls = subgraphUrls(settings.SUBGRAPH_URLS ?? '*');
const signer = new ActorSigner(settings.SECRET_KEY);
const authenticator = new Authenticator(signer, { accounts: urls.accounts!, projects: urls.projects! });
const throttle = await configuredKeyThrottle(authenticator, settings);
const router = routerPlugins({ authenticator, signer, log });

export const gatewayConfig = defineConfig({
  supergraph: resolve(process.cwd(), 'schema/supergraph.graphql'),
  // The supergraph stays as committed; only where each subgraph listens may differ.
  transportEntries: { ...Object.fromEntries(Object.entries(urls).map(([name, location]) => [name, { location }])), ...SUBSCRIPTIONS_OVER_WS },
  plugins: () => [useKeyThrottle(throttle), ...router.plugins],
  graphqlEndpoint: '/graphql',
  maskedErrors: false,
});
