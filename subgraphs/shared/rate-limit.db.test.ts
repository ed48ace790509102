import { describe, expect, inject, it } from 'vitest';
import { limitsOf, MemoryRateLimiter, RedisRateLimiter } from './rate-limit.js';

const limits = limitsOf(3, 5);

describe(MemoryRateLimiter.name, () => {
  it('allows `limit` takes a window, then says how long until the window ends', async () => {
    let now = Date.UTC(2026, 0, 1, 10, 0, 15);
    const limiter = new MemoryRateLimiter(() => now);
    for (let take = 0; take < 3; take++) expect(await limiter.take('key', limits)).toEqual({ allowed: true });
    expect(await limiter.take('key', limits)).toEqual({ allowed: false, retryAfterSeconds: 45 });
    expect(await limiter.take('other', limits)).toEqual({ allowed: true });
    // The next minute, the burst is free again, until the hour's five are spent.
    now += 60_000;
    expect(await limiter.take('key', limits)).toEqual({ allowed: true });
    expect(await limiter.take('key', limits)).toEqual({ allowed: false, retryAfterSeconds: 3600 - 75 });
  });

  it('limits nothing without limits', async () => {
    const limiter = new MemoryRateLimiter();
    for (let take = 0; take < 100; take++) expect((await limiter.take('key', limitsOf(0, 0))).allowed).toBe(true);
  });
});

describe(RedisRateLimiter.name, () => {
  it('shares the counts of every process on one Redis', async () => {
    const prefix = `test-${process.pid}-${Date.now()}:`;
    const [first, second] = await Promise.all([RedisRateLimiter.connect(inject('redisUrl'), prefix), RedisRateLimiter.connect(inject('redisUrl'), prefix)]);
    try {
      expect((await first.take('key', limits)).allowed).toBe(true);
      expect((await second.take('key', limits)).allowed).toBe(true);
      expect((await first.take('key', limits)).allowed).toBe(true);
      const refused = await second.take('key', limits);
      expect(refused.allowed).toBe(false);
      expect(refused.allowed === false && refused.retryAfterSeconds).toBeGreaterThan(0);
      expect((await second.take('another key', limits)).allowed).toBe(true);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
