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
});
