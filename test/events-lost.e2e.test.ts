import type { ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { EventsLostError } from '../subgraphs/shared/errors.js';
import { MemoryPubSub } from '../subgraphs/shared/pubsub/memory.pubsub.js';
import type { Envelope } from '../subgraphs/shared/pubsub/pubsub.js';
import { RedisPubSub } from '../subgraphs/shared/pubsub/redis.pubsub.js';
import { FLOOR_BLOCK, SequenceFloors } from '../subgraphs/shared/pubsub/sequence-floors.js';
import { api } from './kit/http.js';
import { freePort, startPlatform, type Platform } from './kit/process.js';
import { ownRedis, stopRedis } from './kit/redis.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';
import { collect, wsClient } from './kit/ws.js';

const PREFIX = `events-lost-${process.pid}-${Date.now()}:`;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A Redis the test owns, that it can kill and start again (empty) on the same port. */
async function killableRedis(): Promise<{ url: string; kill: () => Promise<void>; restart: () => Promise<void> }> {
  const port = await freePort();
  let server: ChildProcess = await ownRedis(port);
  const kill = () => stopRedis(server);
  cleanups.push(kill);
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: async () => {
      server = await ownRedis(port);
    },
  };
}

/** A TCP path to Redis that the test can cut (every connection reset) and restore: one process's network, failing alone. */
async function cuttableRoute(target: string): Promise<{ url: string; cut: (cut: boolean) => void }> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let cutOff = false;
  const keep = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined).once('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    keep(client);
    if (cutOff) return void client.resetAndDestroy();
    const redis = connect(Number(upstream.port), upstream.hostname);
    keep(redis);
    client.pipe(redis).pipe(client);
    client.once('close', () => redis.destroy());
    redis.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: (cut) => {
      cutOff = cut;
      if (cut) for (const socket of sockets) socket.resetAndDestroy();
    },
  };
}

async function pubsubOn(url: string, floors?: SequenceFloors): Promise<RedisPubSub> {
  const pubsub = await RedisPubSub.connect(url, PREFIX, undefined, floors);
  cleanups.push(() => pubsub.close());
  return pubsub;
}

/** Every event until the subscription ends, and how it ended. */
async function drain<T>(events: AsyncIterableIterator<Envelope<T>>): Promise<{ received: Envelope<T>[]; ending: unknown }> {
  const received: Envelope<T>[] = [];
  try {
    for await (const event of events) received.push(event);
    return { received, ending: 'completed' };
  } catch (error) {
    return { received, ending: error };
  }
}

describe('Redis pub/sub when a connection drops', () => {
  it("ends every subscription of a subscriber whose connection dropped with events_lost, after what it heard before; one asked for while it is down ends at once", async () => {
    const redis = await killableRedis();
    const [publisher, subscriber] = [await pubsubOn(redis.url), await pubsubOn(redis.url)];
    const events = subscriber.subscribe<{ n: number }>('dropped');
    await subscriber.ready();
    await publisher.publish('dropped', { n: 1 });
    // Heard, not yet read, when the connection drops: it still comes first.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await redis.kill();
    await expect.poll(() => subscriber.healthy()).toBe(false);
    const { received, ending } = await drain(events);
    expect(received.map((event) => event.payload)).toEqual([{ n: 1 }]);
    expect(ending).toBeInstanceOf(EventsLostError);
    expect((ending as EventsLostError).extensions.code).toBe('events_lost');

    const askedWhileDown = await drain(subscriber.subscribe('asked-while-down'));
    expect(askedWhileDown.ending).toBeInstanceOf(EventsLostError);
    await redis.restart();
    await expect.poll(() => publisher.healthy() && subscriber.healthy(), { timeout: 10_000 }).toBe(true);
    const again = subscriber.subscribe<{ n: number }>('dropped');
    await subscriber.ready();
    await publisher.publish('dropped', { n: 2 });
    expect((await again.next()).value).toMatchObject({ payload: { n: 2 } });
    await again.return!();
  }, 30_000);

  it("ends the topic's subscribers with events_lost when a publish failed while they were fine, before any later event of it", async () => {
    const redis = await killableRedis();
    const route = await cuttableRoute(redis.url);
    const [publisher, subscriber] = [await pubsubOn(route.url), await pubsubOn(redis.url)];
    const events = subscriber.subscribe<{ n: number }>('unsent');
    const other = subscriber.subscribe<{ n: number }>('untouched');
    await subscriber.ready();
    await publisher.publish('unsent', { n: 1 });
    route.cut(true);
    await expect.poll(() => publisher.healthy()).toBe(false);
    expect(await publisher.publish('unsent', { n: 2 })).toBe(0);
    route.cut(false);
    await expect.poll(() => publisher.healthy(), { timeout: 10_000 }).toBe(true);
    await publisher.publish('unsent', { n: 3 });
    await publisher.publish('untouched', { n: 4 });
    const { received, ending } = await drain(events);
    expect(received.map((event) => event.payload)).toEqual([{ n: 1 }]);
    expect(ending).toBeInstanceOf(EventsLostError);
    // A topic whose publishes all went through keeps its subscribers.
    expect((await other.next()).value).toMatchObject({ payload: { n: 4 } });
    await other.return!();
  }, 30_000);

  it('ends the subscribers with events_lost when the sequence floor cannot be written', async () => {
    const redis = await killableRedis();
    const unreachable = new SequenceFloors(`postgres://nobody@127.0.0.1:${await freePort()}/none`);
    const [publisher, subscriber] = [await pubsubOn(redis.url, unreachable), await pubsubOn(redis.url)];
    const events = subscriber.subscribe('floorless');
    await subscriber.ready();
    expect(await publisher.publish('floorless', { n: 1 })).toBe(0);
    const { received, ending } = await drain(events);
    expect(received).toEqual([]);
    expect(ending).toBeInstanceOf(EventsLostError);
  }, 30_000);
});

describe('Redis pub/sub sequences', () => {
  it('number a topic atomically and in order across publishers', async () => {
    const redis = await killableRedis();
    const floors = new SequenceFloors(inject('databaseUrl'));
    const [a, b, subscriber] = [await pubsubOn(redis.url, floors), await pubsubOn(redis.url, new SequenceFloors(inject('databaseUrl'))), await pubsubOn(redis.url)];
    const topic = `ordered-${Math.random()}`;
    const events = subscriber.subscribe<{ n: number }>(topic);
    await subscriber.ready();
    const sequences = await Promise.all(Array.from({ length: 200 }, (_, n) => (n % 2 ? a : b).publish(topic, { n })));
    const received: number[] = [];
    for (let n = 0; n < 200; n++) received.push((await events.next()).value!.sequence);
    expect(received).toEqual([...received].sort((x, y) => x - y));
    expect(new Set(received).size).toBe(200);
    expect(received.at(-1)! - received[0]!).toBe(199);
    expect([...sequences].sort((x, y) => x - y)).toEqual(received);
    await events.return!();
  }, 30_000);

  it('never go back after Redis restarts empty, within a block or past one', async () => {
    const redis = await killableRedis();
    const topic = `restarted-${Math.random()}`;
    let highest = 0;
    for (const publishes of [3, FLOOR_BLOCK + 5, 1]) {
      const publisher = await pubsubOn(redis.url, new SequenceFloors(inject('databaseUrl')));
      for (let n = 0; n < publishes; n++) {
        const sequence = await publisher.publish(topic, { n });
        expect(sequence).toBeGreaterThan(highest);
        highest = sequence;
      }
      await redis.kill();
      await redis.restart();
      await expect.poll(() => publisher.healthy(), { timeout: 10_000 }).toBe(true);
      // The same publisher, reconnected to the empty Redis, and a new one both go on above.
      expect(await publisher.publish(topic, { after: true })).toBeGreaterThan(highest);
      highest = await publisher.publish(topic, { after: true });
    }
  }, 60_000);
});

describe('in-process pub/sub sequences', () => {
  it('go on above those of the previous run of the platform, within a block or past one', async () => {
    const topic = `memory-${Math.random()}`;
    let highest = 0;
    for (const publishes of [3, FLOOR_BLOCK + 5, 1]) {
      // Each run a new process's pub/sub, over the same database.
      const pubsub = new MemoryPubSub(new SequenceFloors(inject('databaseUrl')));
      cleanups.push(() => pubsub.close());
      const events = pubsub.subscribe(topic);
      const sequences = await Promise.all(Array.from({ length: publishes }, (_, n) => pubsub.publish(topic, { n })));
      for (const sequence of sequences) {
        expect(sequence).toBeGreaterThan(highest);
        expect((await events.next()).value).toMatchObject({ sequence });
        highest = sequence;
      }
      await events.return!();
    }
  }, 30_000);

  it('end the subscribers with events_lost when the floor cannot be written', async () => {
    const pubsub = new MemoryPubSub(new SequenceFloors(`postgres://nobody@127.0.0.1:${await freePort()}/none`));
    cleanups.push(() => pubsub.close());
    const events = pubsub.subscribe('floorless');
    expect(await pubsub.publish('floorless', { n: 1 })).toBe(0);
    expect(await drain(events)).toEqual({ received: [], ending: expect.any(EventsLostError) });
  });
});

const CHANGES = `subscription ($p: Int!) { customer_profile_config_changed(project_id: $p) { sequence action id } }`;
const configs = (tenant: Tenant) => `/api/environments/${tenant.environment_id}/customer_profile_configs/`;
type Change = { sequence: number; action: string; id: string };

/** The same subscription over SSE, as `graphql-sse`'s distinct-connections mode reads it from the router. */
async function sseSubscription(graphqlUrl: string, tenant: Tenant) {
  const results: { data?: { customer_profile_config_changed: Change } | null; errors?: { message: string; extensions?: Record<string, unknown> }[] }[] = [];
  let completed = false;
  const abort = new AbortController();
  const response = await fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${tenant.personal_api_key}` },
    body: JSON.stringify({ query: CHANGES, variables: { p: tenant.environment_id } }),
    signal: abort.signal,
  });
  void (async () => {
    let buffer = '';
    for await (const chunk of response.body!.pipeThrough(new TextDecoderStream()) as unknown as AsyncIterable<string>) {
      buffer += chunk;
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (/^event: complete/m.test(frame)) completed = true;
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (/^event: next/m.test(frame) && data) results.push(JSON.parse(data));
      }
    }
    completed = true;
  })().catch(() => undefined);
  cleanups.push(() => abort.abort());
  return { results, ended: () => completed, failure: () => undefined };
}

describe('a client subscribed through the router while Redis drops', () => {
  let stack: Stack | undefined;
  let router: Platform | undefined;
  afterAll(async () => {
    router?.child.kill('SIGTERM');
    await router?.exited;
    await stack?.stop();
  });

  it('is told events_lost rather than miss acknowledged writes, over graphql-ws and SSE, from local and remote subgraphs, and sees sequences above every one before once Redis is back', async () => {
    const redis = await killableRedis();
    stack = await startStack({ databaseUrl: inject('databaseUrl'), redisUrl: redis.url, redisPrefix: PREFIX });
    // A router of its own process, reaching the stack's subgraphs over HTTP and graphql-ws as the Procfile's routers do.
    router = await startPlatform({
      DATABASE_URL: inject('databaseUrl'),
      REDIS_URL: redis.url,
      REDIS_CHANNEL_PREFIX: PREFIX,
      SECRET_KEY: TEST_SECRET_KEY,
      PORT: String(await freePort()),
      SUBGRAPH_URLS: Object.entries(stack.subgraphs.urls).map(([name, url]) => `${name}=${url}`).join(','),
      LOG_LEVEL: 'silent',
    });
    const tenant = await seedTenant(inject('databaseUrl'), 'events-lost');
    const write = async (n: number) => {
      const response = await api(stack!.url, 'POST', configs(tenant), { key: tenant.personal_api_key, body: { scope: 'person', content: { n } } });
      expect(response.status).toBe(201);
      return response.body.id as string;
    };
    const local = wsClient(stack.wsUrl, tenant.personal_api_key);
    const remote = wsClient(`${router.url.replace('http', 'ws')}/graphql`, tenant.personal_api_key);
    cleanups.push(() => local.dispose(), () => remote.dispose());
    const overWs = (client: typeof local) => {
      const events = collect<{ customer_profile_config_changed: Change }>(client, CHANGES, { p: tenant.environment_id });
      return { results: events.results, ended: () => events.ended().then(() => true), failure: () => events.failure };
    };
    const streams = {
      'graphql-ws, local subgraph': overWs(local),
      'SSE, local subgraph': await sseSubscription(stack.graphqlUrl, tenant),
      'graphql-ws, remote subgraph': overWs(remote),
    };
    // Live end to end once a write is heard on every one.
    const acknowledged: string[] = [];
    for (let n = 0; !Object.values(streams).every((stream) => stream.results.length > 0); n++) {
      expect(n).toBeLessThan(100);
      acknowledged.push(await write(n));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const firstHeard = Object.fromEntries(Object.entries(streams).map(([name, { results }]) => [name, acknowledged.indexOf(results[0]!.data!.customer_profile_config_changed.id)]));

    // A write loop across the outage: Redis killed, writes answered meanwhile, Redis back (empty).
    for (let n = 0; n < 10; n++) acknowledged.push(await write(n));
    await redis.kill();
    for (let n = 0; n < 10; n++) acknowledged.push(await write(n));
    await redis.restart();
    await expect.poll(() => stack!.subgraphs.pubsub.healthy(), { timeout: 15_000 }).toBe(true);
    for (let n = 0; n < 10; n++) acknowledged.push(await write(n));
    for (const stream of Object.values(streams)) await expect.poll(() => stream.ended(), { timeout: 10_000 }).toBe(true);

    for (const [name, { results, failure }] of Object.entries(streams)) {
      const from = firstHeard[name]!;
      const events = results.filter((result) => result.data?.customer_profile_config_changed);
      const ids = events.map((result) => result.data!.customer_profile_config_changed.id);
      // What was heard is every acknowledged write from the first heard on, with none missing…
      expect(ids, name).toEqual(acknowledged.slice(from, from + ids.length));
      // …and then the stream ended with events_lost, the last result, no data beside it.
      expect(ids.length, name).toBeLessThan(acknowledged.length - from);
      expect(results.at(-1), name).toEqual({
        data: null,
        errors: [expect.objectContaining({ message: 'Events of this subscription may be missing: read the current state again and subscribe again.', extensions: expect.objectContaining({ code: 'events_lost' }) })],
      });
      expect(results.length, name).toBe(events.length + 1);
      expect(failure(), name).toBeUndefined();
    }

    const seen = Object.values(streams).flatMap(({ results }) => results.flatMap((result) => (result.data ? [result.data.customer_profile_config_changed.sequence] : [])));
    const again = collect<{ customer_profile_config_changed: Change }>(local, CHANGES, { p: tenant.environment_id });
    for (let n = 0; again.results.length === 0; n++) {
      expect(n).toBeLessThan(100);
      await write(n);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(again.results[0]!.data!.customer_profile_config_changed.sequence).toBeGreaterThan(Math.max(...seen));
    again.dispose();
  }, 120_000);
});
