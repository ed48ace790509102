import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Bootstrapped } from './platform.fixture.js';

/** One kind of request of the mix: how often it comes, and how to make the n-th one. */
export interface MixEntry {
  name: string;
  weight: number;
  /** Sends the n-th request of this kind (each differs from the last); throws on a wrong answer. */
  send(index: number): Promise<void>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });

/** One HTTP request with plain node:http; the answer's body when its status is the one expected. */
function call(url: string, method: string, key: string | undefined, body: unknown, expected: number): Promise<string> {
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | number> = { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}) };
  return new Promise((resolve, reject) => {
    const sent = http.request(url, { method, headers, agent, timeout: 30_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (response.statusCode === expected) resolve(text);
        else reject(new Error(`${method} ${new URL(url).pathname}: ${response.statusCode} ${text.slice(0, 200)}`));
      });
      response.on('error', reject);
    });
    sent.on('timeout', () => sent.destroy(new Error(`${method} ${new URL(url).pathname}: no answer in 30 s`)));
    sent.on('error', reject);
    sent.end(data);
  });
}

async function graphql(url: string, key: string, query: string, variables: Record<string, unknown>): Promise<void> {
  const answer = JSON.parse(await call(`${url}/graphql`, 'POST', key, { query, variables }, 200)) as { errors?: { message: string }[] };
  if (answer.errors?.length) throw new Error(`GraphQL: ${answer.errors[0]!.message}`);
}

/**
 * What an analytics platform's users send, by weight: REST reads and writes (a config created and
 * deleted, which the subscription hears twice), GraphQL queries across two subgraphs, event pages
 * and `/batch/` imports of 20 events. Every request differs from the one before it.
 */
export function soakMix(url: string, account: Bootstrapped): MixEntry[] {
  const { personal_api_key: key, environment_id: environment } = account;
  const configs = `${url}/api/environments/${environment}/customer_profile_configs/`;
  return [
    { name: 'REST list', weight: 25, send: (i) => call(`${configs}?limit=${1 + (i % 20)}`, 'GET', key, undefined, 200).then(() => undefined) },
    {
      name: 'REST create+delete',
      weight: 10,
      send: async (i) => {
        const created = JSON.parse(await call(configs, 'POST', key, { scope: 'person', content: { soak: i } }, 201)) as { id: string };
        await call(`${configs}${created.id}/`, 'DELETE', key, undefined, 204);
      },
    },
    {
      name: 'GraphQL configs+project',
      weight: 25,
      send: (i) => graphql(url, key, 'query ($p: Int!, $l: Int) { customer_profile_configs(project_id: $p, limit: $l) { count results { id scope project { name } } } }', { p: environment, l: 1 + (i % 20) }),
    },
    { name: 'GraphQL me', weight: 10, send: (i) => graphql(url, key, 'query ($p: Int!, $o: Int) { me { email } customer_profile_configs(project_id: $p, offset: $o) { count } }', { p: environment, o: i % 20 }) },
    {
      name: '/batch/ (20 events)',
      weight: 20,
      send: (i) =>
        call(`${url}/batch/`, 'POST', undefined, {
          api_key: account.project_api_key,
          batch: Array.from({ length: 20 }, (_, n) => ({ event: n % 3 ? '$pageview' : 'signed_up', distinct_id: `soak-${(i * 20 + n) % 5000}`, uuid: randomUUID(), timestamp: new Date().toISOString(), properties: { $current_url: `https://example.com/${n}` } })),
        }, 200).then(() => undefined),
    },
    { name: 'REST events page', weight: 10, send: (i) => call(`${url}/api/environments/${environment}/events/?limit=${10 + (i % 20)}`, 'GET', key, undefined, 200).then(() => undefined) },
  ];
}

/** The mix's entries in proportion to their weights, as a wheel to draw the n-th request from. */
export function wheel(mix: MixEntry[]): MixEntry[] {
  return mix.flatMap((entry) => Array.from({ length: entry.weight }, () => entry));
}
