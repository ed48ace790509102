import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ClickHouse } from '../subgraphs/shared/clickhouse/clickhouse.js';
import { forgetClickHouse, registerClickHouse } from '../subgraphs/shared/clickhouse/clickhouse.registry.js';
import { sql } from './kit/db.js';
import { testChdbUrl } from './kit/events-store.js';
import { api, gql } from './kit/http.js';
import { anEvent, eventCount, postBatch } from './kit/ingest.js';
import { freePort } from './kit/process.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
/** A ClickHouse stand-in that answers every request with ClickHouse's own error for throttled inserts. */
let throttling: Server;
/** One that accepts connections and closes them unanswered. */
let hangingUp: Server;

const databaseUrl = () => inject('databaseUrl');

/** A server of `handler` on a free loopback port; its URL as CLICKHOUSE_URL would name it. */
async function standIn(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const urlOf = (server: Server) => `http://default@127.0.0.1:${(server.address() as AddressInfo).port}/analytics`;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: databaseUrl(), env: { CLICKHOUSE_URL: testChdbUrl(`${new URL(databaseUrl()).pathname.slice(1)}_outage`) } });
  owner = await seedTenant(databaseUrl(), 'outage');
  throttling = await standIn((request, response) => {
    request.resume();
    response.writeHead(500, { 'x-clickhouse-exception-code': '252', 'content-type': 'text/plain' });
    response.end('Code: 252. DB::Exception: Too many parts (3000 with average size of 1.00 KiB) in table \'analytics.events\'. Merges are processing significantly slower than inserts. (TOO_MANY_PARTS) (version 26.7.2.1)');
  });
  hangingUp = await standIn((request) => request.socket.destroy());
});
afterAll(async () => {
  await stack?.stop();
  for (const server of [throttling, hangingUp]) server?.close();
});

/**
 * Runs `check` while the installation's ClickHouse is the one at `url` (as when its server went
 * away after start-up), then gives the real one back.
 */
async function whileAway(url: string, check: () => Promise<void>): Promise<void> {
  const away = ClickHouse.open(url);
  registerClickHouse(databaseUrl(), away);
  try {
    await check();
  } finally {
    forgetClickHouse(databaseUrl(), away);
    await away.close();
  }
}

/** The contract's 503: retry after a while, no detail of the failure. */
function expectUnavailable(answer: { status: number; headers: Headers; body: Record<string, unknown> }): void {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(answer.body).toMatchObject({ type: 'server_error', code: 'service_unavailable', detail: 'The events store is unavailable; try again shortly.' });
}

describe('events on a ClickHouse that is away', () => {
  it.each([
    ['refuses connections', async () => `http://default@127.0.0.1:${await freePort()}/analytics`],
    ['throttles inserts (TOO_MANY_PARTS)', async () => urlOf(throttling)],
    ['closes connections unanswered', async () => urlOf(hangingUp)],
  ])('answers 503 with Retry-After when it %s, and stores nothing', async (_name, url) => {
    const stored = anEvent({ event: 'kept' });
    expect((await postBatch(stack, { api_key: owner.project_api_key, batch: [stored] })).status).toBe(200);
    const lost = anEvent({ event: '$identify', distinct_id: `away-${_name.length}`, properties: { $set: { email: 'x@example.com' } } });
    await whileAway(await url(), async () => {
      expectUnavailable(await postBatch(stack, { api_key: owner.project_api_key, batch: [lost] }));
      expectUnavailable(await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/events/`, { key: owner.personal_api_key }));
      const graphql = await gql(stack.graphqlUrl, `{ events(project_id: ${owner.environment_id}) { results { id } } }`, {}, owner.personal_api_key);
      expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'service_unavailable', status: 503 });
    });
    // The batch's persons went with it: all or nothing.
    const persons = await sql<{ n: string }>(databaseUrl(), 'select count(*) as n from ingestion.person_distinct_ids where environment_id = $1 and distinct_id = $2', [owner.environment_id, lost.distinct_id]);
    expect(Number(persons[0]!.n)).toBe(0);
    // Back: the same batch is stored, once.
    expect((await postBatch(stack, { api_key: owner.project_api_key, batch: [lost] })).status).toBe(200);
    const list = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/events/?event=$identify`, { key: owner.personal_api_key });
    expect(list.body.results.map((event: { id: string }) => event.id)).toContain(lost.uuid);
  });

  it('keeps what was acknowledged before', async () => {
    expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(6);
  });
});
