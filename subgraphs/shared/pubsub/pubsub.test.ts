import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryPubSub } from './memory.pubsub.js';
import type { PubSub } from './pubsub.js';
import { RedisPubSub } from './redis.pubsub.js';

const prefix = `pubsub-test-${process.pid}-${Date.now()}:`;
const opened: PubSub[] = [];
afterAll(() => Promise.all(opened.map((pubsub) => pubsub.close())));

const implementations: [string, () => Promise<{ publisher: PubSub; subscriber: PubSub; settle: () => Promise<void> }>][] = [
  ['memory', async () => {
    const pubsub = new MemoryPubSub();
    return { publisher: pubsub, subscriber: pubsub, settle: async () => undefined };
  }],
  ['redis', async () => {
    // Two connections pairs, as two processes would have.
    const publisher = await RedisPubSub.connect(inject('redisUrl'), prefix);
    const subscriber = await RedisPubSub.connect(inject('redisUrl'), prefix);
    opened.push(publisher, subscriber);
    return { publisher, subscriber, settle: () => subscriber.ready() };
  }],
];

describe.each(implementations)('%s pub/sub', (_name, open) => {
  it('delivers JSON payloads in order with increasing sequence numbers, per topic', async () => {
    const { publisher, subscriber, settle } = await open();
    const topic = `topic-${Math.random()}`;
    const events = subscriber.subscribe<{ n: number; at: string }>(topic);
    const other = subscriber.subscribe(`${topic}-other`);
    await settle();
    const at = new Date('2026-01-01T00:00:00Z');
    const first = await publisher.publish(topic, { n: 1, at });
    await publisher.publish(topic, { n: 2, at });
    const received = [(await events.next()).value, (await events.next()).value];
    expect(received).toEqual([
      { sequence: first, payload: { n: 1, at: '2026-01-01T00:00:00.000Z' } },
      { sequence: first + 1, payload: { n: 2, at: '2026-01-01T00:00:00.000Z' } },
    ]);
    await events.return!();
    await other.return!();
  });

  it('stops delivering once the subscriber returns', async () => {
    const { publisher, subscriber, settle } = await open();
    const topic = `topic-${Math.random()}`;
    const events = subscriber.subscribe(topic);
    await settle();
    await events.return!();
    await publisher.publish(topic, { ignored: true });
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });

  it('delivers to a subscriber that comes while the last one of its topic is leaving', async () => {
    // A client re-attaching to a conversation the moment its previous stream closed.
    const { publisher, subscriber, settle } = await open();
    const topic = `topic-${Math.random()}`;
    const leaving = subscriber.subscribe(topic);
    await settle();
    await leaving.return!();
    const coming = subscriber.subscribe<{ n: number }>(topic);
    await settle();
    await publisher.publish(topic, { n: 1 });
    expect((await coming.next()).value).toMatchObject({ payload: { n: 1 } });
    await coming.return!();
  }, 10_000);
});

describe(RedisPubSub.name, () => {
  it('needs a channel prefix', async () => {
    await expect(RedisPubSub.connect(inject('redisUrl'), '')).rejects.toThrow(/prefix/);
  });

  it('subscribes once Redis is back to a topic first asked for while it was down', async () => {
    const port = await freePort();
    let redis = await ownRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const [publisher, subscriber] = [await RedisPubSub.connect(url, prefix), await RedisPubSub.connect(url, prefix)];
    try {
      redis.kill('SIGKILL');
      await expect.poll(() => subscriber.healthy()).toBe(false);
      const events = subscriber.subscribe<{ n: number }>('asked-while-down');
      await subscriber.ready();
      redis = await ownRedis(port);
      await expect.poll(() => publisher.healthy() && subscriber.healthy(), { timeout: 10_000 }).toBe(true);
      let received: unknown;
      void events.next().then(({ value }) => (received = value));
      await expect.poll(async () => (await publisher.publish('asked-while-down', { n: 1 }), received), { timeout: 10_000, interval: 200 }).toMatchObject({ payload: { n: 1 } });
      await events.return!();
    } finally {
      await Promise.all([publisher.close(), subscriber.close()]);
      redis.kill('SIGKILL');
    }
  }, 30_000);
});

/** A Redis of this test's own, so that it can be stopped without disturbing other suites. */
async function ownRedis(port: number): Promise<ChildProcess> {
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await expect.poll(() => isListening(port), { timeout: 5000, interval: 100 }).toBe(true);
  return server;
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket.end() && true)).on('error', () => resolve(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
