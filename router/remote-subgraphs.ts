import { readSupergraphConfig } from '../schema/compose.js';
import { answersHealthy, type Health } from '../subgraphs/shared/health.js';
import type { PubSub } from '../subgraphs/shared/pubsub/pubsub.js';

/**
 * Where each subgraph listens when they run elsewhere, from SUBGRAPH_URLS: `*` for the routing
 * URLs of supergraph.yaml, or `name=url,...` for those that differ (the others keep theirs).
 */
export function subgraphUrls(spec: string): Record<string, string> {
  const named = spec === '*' ? {} : Object.fromEntries(spec.split(',').map((pair) => pair.split('=') as [string, string]));
  return Object.fromEntries(readSupergraphConfig().map((entry) => [entry.name, named[entry.name] ?? entry.routing_url]));
}

/** Every request is authenticated through these: without one of them no operation can be answered. */
const AUTHENTICATING = ['accounts', 'projects'];

/**
 * A router's health when its subgraphs run elsewhere: it serves while its own pub/sub (Redis, for
 * revoked keys) is up and the subgraphs that authenticate callers answer their own `/healthz`;
 * another subgraph that is down costs only its own fields, so it is named in the detail, not a
 * reason for a load balancer to take this router out.
 */
export async function remoteHealth(urls: Record<string, string>, pubsub: PubSub | undefined): Promise<Health> {
  const names = Object.keys(urls);
  const answers = await Promise.all(names.map((name) => answersHealthy(new URL('/healthz', urls[name]))));
  const parts: Record<string, boolean> = Object.fromEntries(names.map((name, index) => [name, answers[index]!]));
  if (pubsub) parts.pubsub = pubsub.healthy();
  const serving = AUTHENTICATING.every((name) => parts[name] !== false) && parts.pubsub !== false;
  return { serving, parts };
}
