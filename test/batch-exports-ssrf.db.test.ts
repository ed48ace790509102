import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { ACTOR_HEADER, ActorSigner, SERVICE } from '../subgraphs/shared/auth/actor.js';
import { setConfig } from '../subgraphs/shared/config.js';
import { backfill, createExport, exportsPath, ingestedAsTheyHappened, runsOf, startReceiver } from './kit/batch-exports.js';
import { sql } from './kit/db.js';
import { S3_KEYS } from './kit/destinations.js';
import { ingest, SEED_EVENTS } from './kit/endpoints.js';
import { api, gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';

/**
 * Tenants' destinations reach public addresses only. Every attempt aims at a listener this suite
 * starts on 127.0.0.1, and nothing else: other addresses are refused before any connection (their
 * classification is unit-tested in the kit). The suite has a database of its own, so that no
 * other suite's stack (which allows loopback) works its runs, and its stack works none of theirs.
 */
let databaseUrl: string;
let stack: Stack;
let owner: Tenant;
let listener: Server;
let port: number;
const connections: string[] = [];

beforeAll(async () => {
  const server = new URL(inject('databaseUrl'));
  server.pathname = '/postgres';
  databaseUrl = await createScratchDatabase(server.toString(), 'analytics_ssrf');
  stack = await startStack({ databaseUrl, env: { DESTINATION_ALLOWED_HOSTS: '' } });
  owner = await seedTenant(databaseUrl, 'ssrf');
  listener = createServer((socket) => {
    connections.push(String(socket.remoteAddress));
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
  await ingest(stack, owner, SEED_EVENTS);
  await ingestedAsTheyHappened(databaseUrl, owner.environment_id);
});
afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => listener?.close(resolve));
  if (databaseUrl) await dropDatabase(databaseUrl);
});

/** Runs `body` with DESTINATION_ALLOWED_HOSTS set to `list`, as a platform started with it would. */
async function allowing<T>(list: string, body: () => Promise<T>): Promise<T> {
  const before = stack.config;
  setConfig({ ...before, DESTINATION_ALLOWED_HOSTS: list });
  try {
    return await body();
  } finally {
    setConfig(before);
  }
}

/** A test step, as the platform's own callers run them (to the subgraph, as the router's service actor). */
async function testStep(operation: string, variables: Record<string, unknown>): Promise<{ status: string; message: string | null }> {
  const query = `mutation ${operation} { result { status message } } }`;
  const response = await fetch(stack.subgraphs.urls['batch-exports']!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [ACTOR_HEADER]: new ActorSigner(TEST_SECRET_KEY).sign(SERVICE) },
    body: JSON.stringify({ query, variables: { p: owner.environment_id, ...variables } }),
  });
  const { data } = (await response.json()) as { data: Record<string, { result: { status: string; message: string | null } }> };
  return Object.values(data)[0]!.result;
}
const storedStep = (id: string) => testStep('($p: Int!, $id: String!) { run_batch_export_test_step(project_id: $p, id: $id, step: 0)', { id });
const newStep = (destination: unknown, step: number) => testStep(`($p: Int!, $d: JSON) { run_batch_export_test_step_new(project_id: $p, destination: $d, step: ${step})`, { d: destination });

const http = (url: string) => ({ type: 'HTTP', config: { url, token: 'tenant-token' } });
const postgres = (host: string, config: Record<string, unknown> = {}) => ({
  type: 'Postgres',
  config: { host, port, database: 'postgres', user: 'postgres', password: 'unused', table_name: 'events', sslmode: 'disable', ...config },
});
const s3 = (endpoint_url: string) => ({ type: 'S3', config: { bucket_name: 'exports', region: 'us-east-1', endpoint_url, ...S3_KEYS } });

const create = (destination: unknown) => api(stack.url, 'POST', exportsPath(owner), { key: owner.personal_api_key, body: { name: 'ssrf', interval: 'day', destination } });
const createGql = (destination: unknown) =>
  gql(stack.graphqlUrl, 'mutation($p: Int!, $d: JSON) { create_batch_export(project_id: $p, name: "ssrf", interval: "day", destination: $d) { id } }', { p: owner.environment_id, d: destination }, owner.personal_api_key);

async function exportCount(): Promise<number> {
  const [row] = await sql<{ n: number }>(databaseUrl, 'select count(*)::int as n from batch_exports.batch_exports where environment_id = $1', [owner.environment_id]);
  return row!.n;
}

/** Creation is refused over REST and GraphQL alike, with the field and the kind of address named. */
async function expectRefused(destination: unknown, attr: string, reason: RegExp): Promise<void> {
  const before = await exportCount();
  const rest = await create(destination);
  expect(rest.status, rest.text).toBe(400);
  expect(rest.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr });
  expect(rest.body.detail).toMatch(reason);
  const graphql = await createGql(destination);
  expect(graphql.errors?.[0]).toMatchObject({ message: rest.body.detail, extensions: { code: 'invalid_input', type: 'validation_error', attr } });
  expect(await exportCount()).toBe(before);
}

describe('batch export destinations: create and update', () => {
  it('refuses every spelling of loopback, the metadata address and names, 0.0.0.0 and Unix sockets', async () => {
    const loopback = ['127.0.0.1', 'localhost', '2130706433', '0x7f000001', '0x7f.1', '[::ffff:127.0.0.1]', '[::1]'];
    for (const host of loopback) await expectRefused(http(`http://${host}:${port}/`), 'destination__config__url', /is a loopback address/);
    await expectRefused(http('http://169.254.169.254/latest/meta-data/'), 'destination__config__url', /is the cloud metadata address/);
    await expectRefused(http('http://metadata.google.internal/computeMetadata/v1/'), 'destination__config__url', /is the cloud metadata address/);
    await expectRefused(http(`http://0.0.0.0:${port}/`), 'destination__config__url', /is an unspecified address/);
    for (const host of ['127.0.0.1', 'localhost', '2130706433', '0x7f.1']) await expectRefused(postgres(host), 'destination__config__host', /is a loopback address/);
    await expectRefused(postgres('/var/run/postgresql'), 'destination__config__host', /is a Unix socket path/);
    await expectRefused(postgres('169.254.169.254'), 'destination__config__host', /is the cloud metadata address/);
    await expectRefused(s3(`http://[::ffff:127.0.0.1]:${port}`), 'destination__config__endpoint_url', /is a loopback address/);
    await expectRefused(s3('http://0x7f000001'), 'destination__config__endpoint_url', /is a loopback address/);
    expect(connections).toEqual([]);
  });

  it('refuses an update that moves a destination to such an address, and changes nothing', async () => {
    const stored = await createExport(stack, owner, { destination: http('https://hooks.example.com/batch/') });
    const moved = await api(stack.url, 'PATCH', exportsPath(owner, stored.id), { key: owner.personal_api_key, body: { destination: { type: 'HTTP', config: { url: `http://2130706433:${port}/`, token: 'new' } } } });
    expect(moved.status).toBe(400);
    expect(moved.body).toMatchObject({ code: 'invalid_input', attr: 'destination__config__url' });
    expect((await api(stack.url, 'GET', exportsPath(owner, stored.id), { key: owner.personal_api_key })).body.destination.config.url).toBe('https://hooks.example.com/batch/');
  });

  it('allows what DESTINATION_ALLOWED_HOSTS names: a host, a host:port (not another port), a CIDR block', async () => {
    for (const list of ['127.0.0.1', `127.0.0.1:${port}`, '127.0.0.0/8', 'localhost']) {
      await allowing(list, async () => {
        const host = list === 'localhost' ? 'localhost' : '127.0.0.1';
        expect((await create(http(`http://${host}:${port}/`))).status, list).toBe(201);
        expect((await create(postgres(host))).status, list).toBe(201);
      });
    }
    await allowing(`127.0.0.1:${port}`, () => expectRefused(http(`http://127.0.0.1:${port + 1}/`), 'destination__config__url', /is a loopback address/));
    await allowing('10.0.0.0/8', () => expectRefused(postgres('127.0.0.1'), 'destination__config__host', /is a loopback address/));
    expect(connections).toEqual([]);
  });
});

describe('batch export destinations: connecting', () => {
  it('refuses at connect time a destination stored while allowed, once the allow-list no longer holds it', async () => {
    const stored = await allowing('127.0.0.1', async () => [
      await createExport(stack, owner, { destination: http(`http://127.0.0.1:${port}/batch/`) }),
      await createExport(stack, owner, { destination: postgres('127.0.0.1') }),
      await createExport(stack, owner, { destination: s3(`http://127.0.0.1:${port}`) }),
    ]);
    for (const item of stored) {
      await backfill(stack, owner, item.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
      const [run] = await runsOf(stack, owner, item.id);
      expect(run, item.destination.type).toMatchObject({ status: 'Failed', attempts: 1 });
      expect(run.latest_error).toBe("The destination's address is refused: it is a loopback address. Destinations reach public addresses only, unless the platform's operator allows the host.");
      expect(await storedStep(item.id)).toMatchObject({ status: 'Failed', message: expect.stringMatching(/is a loopback address/) });
    }
    expect(connections).toEqual([]);
  });

  it('refuses at connect time a name stored as a name that resolves to a non-public address', async () => {
    // The machine's own name: a name, so nothing is resolved when the export is stored, that resolves
    // here (through the system's resolver, as a tenant's name would) to the loopback address or the
    // machine's own.
    const name = hostname();
    const addresses = await lookup(name, { all: true });
    expect(addresses.filter(({ address }) => !/^(127\.|10\.|172\.(1[6-9]|2\d|3[01])\.|192\.168\.|::1$|f[cd])/.test(address)), `${name} resolves to a public address`).toEqual([]);
    const stored = [
      await createExport(stack, owner, { destination: http(`http://${name}:${port}/batch/`) }),
      await createExport(stack, owner, { destination: postgres(name) }),
      await createExport(stack, owner, { destination: s3(`http://${name}:${port}`) }),
    ];
    for (const item of stored) {
      await backfill(stack, owner, item.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
      const [run] = await runsOf(stack, owner, item.id);
      expect(run, item.destination.type).toMatchObject({ status: 'Failed', attempts: 1 });
      expect(run.latest_error).toMatch(/^The destination's address is refused: it is a (loopback|private) address\. /);
      expect(await storedStep(item.id)).toMatchObject({ status: 'Failed', message: expect.stringMatching(/is a (loopback|private) address/) });
    }
    expect(connections).toEqual([]);
  });

  it('refuses the takeover through the platform\'s own database: no membership is written', async () => {
    const own = new URL(databaseUrl);
    const memberships = async () => (await sql<{ n: number }>(databaseUrl, 'select count(*)::int as n from projects.memberships'))[0]!.n;
    const before = await memberships();
    const takeover = {
      type: 'Postgres',
      config: { host: own.hostname, port: Number(own.port || 5432), database: own.pathname.slice(1), user: 'postgres', password: 'unused', schema: 'projects', table_name: 'memberships', sslmode: 'disable' },
    };
    const hogql_query = 'SELECT distinct_id AS user_id, event AS organization_id FROM events';
    const refused = await api(stack.url, 'POST', exportsPath(owner), { key: owner.personal_api_key, body: { name: 'takeover', interval: 'day', destination: takeover, hogql_query } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_input', attr: 'destination__config__host' });
    expect(await newStep(takeover, 2)).toMatchObject({ status: 'Failed', message: expect.stringMatching(/is a loopback address/) });
    expect(await memberships()).toBe(before);
  });

  it("tells a 4xx by its status and a fixed reason, never the destination's body", async () => {
    const receiver = await startReceiver(() => 403);
    try {
      const url = new URL(receiver.url);
      const item = await allowing(`127.0.0.1:${url.port}`, async () => {
        const created = await createExport(stack, owner, { destination: http(receiver.url) });
        await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
        expect(await storedStep(created.id)).toEqual({ status: 'Failed', message: 'The destination refused the token (403): The destination answered 403 Forbidden.' });
        return created;
      });
      const [run] = await runsOf(stack, owner, item.id);
      expect(run).toMatchObject({ status: 'Failed', attempts: 1 });
      expect(run.latest_error).toBe('NonRetryableResponseError (status: 403): The destination answered 403 Forbidden.');
    } finally {
      await receiver.stop();
    }
  });
});
