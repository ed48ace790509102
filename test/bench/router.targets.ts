import { isDeepStrictEqual } from 'node:util';
import type { LoadTarget } from './load.runner.js';
import { CONFIG_COUNT, type Seed } from './platform.fixture.js';

/** Needs two subgraphs: the configs from customer-profiles, each project's name from projects. */
export const QUERY = `query($p: Int!) {
  customer_profile_configs(project_id: $p, limit: ${CONFIG_COUNT}) {
    count
    results { id scope content created_at project { id name } }
  }
}`;

/** The GraphQL query above, posted to a gateway with the seed's key. */
export function graphqlTarget(key: string, label: string, graphqlUrl: string, seed: Seed): LoadTarget {
  return {
    key,
    label,
    url: graphqlUrl,
    method: 'POST',
    headers: { authorization: `Bearer ${seed.personal_api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: QUERY, variables: { p: seed.environment_id } }),
  };
}

/** The query with its page size as a variable: each request of a distinct run asks for another one. */
const DISTINCT_QUERY = `query($p: Int!, $limit: Int) {
  customer_profile_configs(project_id: $p, limit: $limit) {
    count
    results { id scope content created_at project { id name } }
  }
}`;

/**
 * The GraphQL query with different variables on every request (a page size from 20 to 999: the same
 * 20 records): no two requests in flight are alike, so neither gateway can answer one with
 * another's work, as when real clients each ask their own question.
 */
export function distinctGraphqlTarget(key: string, label: string, graphqlUrl: string, seed: Seed): LoadTarget {
  const body = (index: number) => JSON.stringify({ query: DISTINCT_QUERY, variables: { p: seed.environment_id, limit: CONFIG_COUNT + (index % 980) } });
  return {
    ...graphqlTarget(key, label, graphqlUrl, seed),
    body: body(0),
    variant: (index) => ({ body: body(index) }),
  };
}

/** The same records through the REST layer (which leaves out `project`: PostHog's record has none). */
export function restTarget(key: string, label: string, platformUrl: string, seed: Seed): LoadTarget {
  return {
    key,
    label,
    url: `${platformUrl}/api/environments/${seed.environment_id}/customer_profile_configs/?limit=${CONFIG_COUNT}`,
    method: 'GET',
    headers: { authorization: `Bearer ${seed.personal_api_key}` },
  };
}

/** The REST records with a different page size on every request, as {@link distinctGraphqlTarget} asks GraphQL. */
export function distinctRestTarget(key: string, label: string, platformUrl: string, seed: Seed): LoadTarget {
  const path = (index: number) => `/api/environments/${seed.environment_id}/customer_profile_configs/?limit=${CONFIG_COUNT + (index % 980)}`;
  const target = restTarget(key, label, platformUrl, seed);
  return { ...target, url: `${platformUrl}${path(0)}`, variant: (index) => ({ path: path(index) }) };
}

/**
 * One request to each target before any load: a benchmark of wrong answers measures nothing.
 * Both gateways must give the same data, with every project's name; REST the same records.
 */
export async function checkAnswers(router: LoadTarget, apollo: LoadTarget, rest: LoadTarget, seed: Seed): Promise<void> {
  const [ours, theirs, records] = await Promise.all([answer(router), answer(apollo), answer(rest)]);
  const list = (ours as { data?: { customer_profile_configs?: { results?: Array<{ id: string; project?: { name?: string } }> } } })
    .data?.customer_profile_configs?.results;
  if (!list || list.length !== CONFIG_COUNT || list.some((config) => config.project?.name !== seed.project_name)) {
    throw new Error(`${router.label} answered unexpectedly: ${JSON.stringify(ours).slice(0, 500)}`);
  }
  if (!isDeepStrictEqual(ours, theirs)) {
    throw new Error(`${apollo.label} answered differently from ${router.label}: ${JSON.stringify(theirs).slice(0, 500)}`);
  }
  const restIds = ((records as { results?: Array<{ id: string }> }).results ?? []).map((record) => String(record.id));
  if (!isDeepStrictEqual(restIds, list.map((config) => String(config.id)))) {
    throw new Error(`${rest.label} answered other records: ${JSON.stringify(records).slice(0, 500)}`);
  }
}

async function answer(target: LoadTarget): Promise<unknown> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${target.label} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}
