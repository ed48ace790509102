import type { ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { RedisPubSub } from '../subgraphs/shared/pubsub/redis.pubsub.js';
import { api } from './kit/http.js';
import { freePort, startPlatform } from './kit/process.js';
import { ownRedis } from './kit/redis.js';
import { seedTenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';

const PREFIX = `redis-outage-${process.pid}:`;

describe('when Redis fails', () => {
  let stack: Stack | undefined;
  let redis: ChildProcess | undefined;
  afterAll(async () => {
    redis?.kill('SIGKILL');
    await stack?.stop();
  });

  it('still saves and answers writes, and /healthz says 503', async () => {
    const port = await freePort();
    redis = await ownRedis(port);
    // Rate limits on: their counts live in the Redis that fails, and must not refuse anyone for it.
    stack = await startStack({ databaseUrl: inject('databaseUrl'), redisUrl: `redis://127.0.0.1:${port}`, env: { RATE_LIMIT_PERSONAL_KEY_PER_MINUTE: '100' } });
    const tenant = await seedTenant(inject('databaseUrl'), 'outage');
    expect((await api(stack.url, 'GET', '/healthz')).status).toBe(200);

    redis.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const path = `/api/environments/${tenant.environment_id}/customer_profile_configs/`;
    const created = await api(stack.url, 'POST', path, { key: tenant.personal_api_key, body: { scope: 'person' } });
    expect(created.status).toBe(201);
    expect((await api(stack.url, 'GET', `${path}${created.body.id}/`, { key: tenant.personal_api_key })).status).toBe(200);
    const health = await api(stack.url, 'GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.body).toEqual({ status: 'unavailable', down: ['pubsub'] });
  });

  it('stops start-up with a one-line message naming REDIS_URL when Redis cannot be reached', async () => {
    const failed = await startPlatform({
      DATABASE_URL: inject('databaseUrl'),
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      SECRET_KEY: TEST_SECRET_KEY,
      PORT: String(await freePort()),
      LOG_LEVEL: 'silent',
    }).catch((error: Error) => error.message);
    expect(failed).toMatch(/^invalid setting REDIS_URL: cannot connect to Redis: .+$/m);
  });

  it('stops start-up naming REDIS_URL when its server takes connections and never answers, rather than wait for ever', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const failed = await startPlatform({
        DATABASE_URL: inject('databaseUrl'),
        REDIS_URL: `redis://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        SECRET_KEY: TEST_SECRET_KEY,
        PORT: String(await freePort()),
        LOG_LEVEL: 'silent',
      }).catch((error: Error) => error.message);
      expect(failed).toMatch(/^invalid setting REDIS_URL: cannot connect to Redis: no answer within 10 s$/m);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 90_000);

  it('ends at once a subscription asked for while Redis is down (events_lost), and subscribes one asked for once it is back', async () => {
    const port = await freePort();
    let server = await ownRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const [publisher, subscriber] = [await RedisPubSub.connect(url, PREFIX), await RedisPubSub.connect(url, PREFIX)];
    try {
      server.kill('SIGKILL');
      await expect.poll(() => subscriber.healthy()).toBe(false);
      // It would miss what is published until Redis is back and it is subscribed: its client is told so.
      await expect(subscriber.subscribe('asked-while-down').next()).rejects.toMatchObject({ extensions: { code: 'events_lost' } });
      server = await ownRedis(port);
      await expect.poll(() => publisher.healthy() && subscriber.healthy(), { timeout: 10_000 }).toBe(true);
      const events = subscriber.subscribe<{ n: number }>('asked-while-down');
      let received: unknown;
      void events.next().then(({ value }) => (received = value));
      await expect.poll(async () => (await publisher.publish('asked-while-down', { n: 1 }), received), { timeout: 10_000, interval: 200 }).toMatchObject({ payload: { n: 1 } });
      await events.return!();
    } finally {
      await Promise.all([publisher.close(), subscriber.close()]);
      server.kill('SIGKILL');
    }
  }, 30_000);

  it('closes its connections when Redis stops answering, instead of waiting on QUIT for ever', async () => {
    const port = await freePort();
    const server = await ownRedis(port);
    const pubsub = await RedisPubSub.connect(`redis://127.0.0.1:${port}`, PREFIX);
    try {
      // Stopped, not killed: the connections stay open and read as ready, and QUIT is never answered.
      server.kill('SIGSTOP');
      expect(pubsub.healthy()).toBe(true);
      await pubsub.close();
      expect(pubsub.healthy()).toBe(false);
    } finally {
      server.kill('SIGCONT');
      server.kill('SIGKILL');
    }
  }, 20_000);
});
