import { ACTOR_HEADER } from '../subgraphs/shared/auth/actor.js';

/** A GraphQL call straight to one subgraph (the router's own lookups, not client operations). */
export async function callSubgraph<T>(url: string, actorHeader: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [ACTOR_HEADER]: actorHeader },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(10_000),
  });
  const result = (await response.json()) as { data?: T; errors?: { message: string }[] };
  if (!response.ok || result.errors?.length || !result.data) {
    throw new Error(`subgraph call failed (${response.status}): ${result.errors?.[0]?.message ?? 'no data'}`);
  }
  return result.data;
}
