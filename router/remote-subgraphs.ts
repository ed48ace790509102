import { readSupergraphConfig } from '../schema/compose.js';
import { answersHealthy } from '../subgraphs/shared/http.js';

/**
 * Where each subgraph listens when they run elsewhere, from SUBGRAPH_URLS: `*` for the routing
 * URLs of supergraph.yaml, or `name=url,...` for those that differ (the others keep theirs).
 */
export function subgraphUrls(spec: string): Record<string, string> {
  const named = spec === '*' ? {} : Object.fromEntries(spec.split(',').map((pair) => pair.split('=') as [string, string]));
  return Object.fromEntries(readSupergraphConfig().map((entry) => [entry.name, named[entry.name] ?? entry.routing_url]));
}

/** Healthy when every subgraph answers its own /healthz. */
export async function subgraphsHealthy(urls: Record<string, string>): Promise<boolean> {
  const answers = await Promise.all(Object.values(urls).map((url) => answersHealthy(new URL('/healthz', url))));
  return answers.every(Boolean);
}
