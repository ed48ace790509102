import cluster from 'node:cluster';
import { createClient, type RedisClientType } from 'redis';
import { callPrimary } from './cluster/cluster.ipc.js';
import { connectAnswering } from './pubsub/redis.connect.js';

/** At most `limit` takes in each window of `windowSeconds` (PostHog's burst and sustained rates). */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export const ALLOWED: Verdict = { allowed: true };

/**
 * Counts takes per key in fixed windows. With REDIS_URL the counts live in Redis, so every
 * process of a deployment shares them; otherwise in memory: the cluster primary's for the workers
 * of `npm start`, this process's for a process run alone (a limit per process).
 */
export interface RateLimiter {
  take(key: string, limits: readonly RateLimit[]): Promise<Verdict>;
  close(): Promise<void>;
}

/** The window a moment falls in, and the seconds left of it. */
function windowOf(limit: RateLimit, nowMs: number): { start: number; left: number } {
  const size = limit.windowSeconds * 1000;
  const start = Math.floor(nowMs / size) * size;
  return { start, left: Math.max(1, Math.ceil((start + size - nowMs) / 1000)) };
}

/** The longest wait among the limits a take went past; null when it went past none. */
function verdict(counts: number[], limits: readonly RateLimit[], left: number[]): Verdict {
  let wait = 0;
  counts.forEach((count, index) => {
    if (count > limits[index]!.limit) wait = Math.max(wait, left[index]!);
  });
  return wait > 0 ? { allowed: false, retryAfterSeconds: wait } : ALLOWED;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly counts = new Map<string, { count: number; expires: number }>();
  private sweptAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async take(key: string, limits: readonly RateLimit[]): Promise<Verdict> {
    const now = this.now();
    this.sweep(now);
    const left: number[] = [];
    const counts = limits.map((limit) => {
      const window = windowOf(limit, now);
      left.push(window.left);
      const slot = `${key}\n${limit.windowSeconds}\n${window.start}`;
      const entry = this.counts.get(slot) ?? { count: 0, expires: window.start + limit.windowSeconds * 1000 };
      entry.count += 1;
      this.counts.set(slot, entry);
      return entry.count;
    });
    return verdict(counts, limits, left);
  }

  /** Forgets ended windows, at most once a second. */
  private sweep(now: number): void {
    if (now - this.sweptAt < 1000) return;
    this.sweptAt = now;
    for (const [slot, entry] of this.counts) if (entry.expires <= now) this.counts.delete(slot);
  }

  async close(): Promise<void> {
    this.counts.clear();
  }
}

export class RedisRateLimiter implements RateLimiter {
  private constructor(
    private readonly client: RedisClientType,
    private readonly prefix: string,
  ) {}

  static async connect(url: string, prefix: string): Promise<RedisRateLimiter> {
    let connected = false;
    const client: RedisClientType = createClient({
      url,
      // Commands are not queued while Redis is away: a take fails at once (and is let through).
      disableOfflineQueue: true,
      // A Redis away at start-up fails it; once connected, a lost connection is retried for ever.
      socket: { connectTimeout: 5000, reconnectStrategy: (retries: number, cause: Error) => (!connected && retries >= 3 ? cause : Math.min(100 * 2 ** retries, 3000)) },
    });
    // Errors surface on the commands that meet them; a lost connection reconnects by itself.
    client.on('error', () => undefined);
    await connectAnswering([client]);
    connected = true;
    return new RedisRateLimiter(client, prefix);
  }

  /**
   * One round trip: each window's counter is raised and given its expiry. With Redis away (or
   * slower than a second) the request is let through: the limits protect the platform, and they
   * must not become the reason it refuses everyone.
   */
  async take(key: string, limits: readonly RateLimit[]): Promise<Verdict> {
    if (limits.length === 0 || !this.client.isReady) return ALLOWED;
    return Promise.race([this.count(key, limits), new Promise<Verdict>((resolve) => setTimeout(resolve, TAKE_TIMEOUT_MS, ALLOWED).unref())]).catch(() => ALLOWED);
  }

  private async count(key: string, limits: readonly RateLimit[]): Promise<Verdict> {
    const now = Date.now();
    const windows = limits.map((limit) => windowOf(limit, now));
    const multi = this.client.multi();
    limits.forEach((limit, index) => {
      const slot = `${this.prefix}ratelimit:${key}:${limit.windowSeconds}:${windows[index]!.start}`;
      multi.incr(slot);
      multi.expire(slot, limit.windowSeconds + 1);
    });
    const replies = (await multi.exec()) as unknown[];
    const counts = limits.map((_, index) => Number(replies[index * 2]));
    return verdict(
      counts,
      limits,
      windows.map((window) => window.left),
    );
  }

  async close(): Promise<void> {
    if (this.client.isReady) await this.client.quit().catch(() => undefined);
    else if (this.client.isOpen) this.client.destroy();
  }
}

/**
 * A cluster worker's limiter without REDIS_URL: the counts live in the primary's memory (see
 * {@link rateLimitServices}), so a key's limit holds across the workers, not per worker. A take
 * the primary does not answer lets the request through, as with Redis.
 */
export class ClusterRateLimiter implements RateLimiter {
  async take(key: string, limits: readonly RateLimit[]): Promise<Verdict> {
    if (limits.length === 0) return ALLOWED;
    return callPrimary<Verdict>('rateLimit.take', key, limits).catch(() => ALLOWED);
  }

  async close(): Promise<void> {}
}

/** The primary's side of {@link ClusterRateLimiter}. */
export function rateLimitServices(): Record<string, (key: string, limits: readonly RateLimit[]) => Promise<Verdict>> {
  const counts = new MemoryRateLimiter();
  return { 'rateLimit.take': (key, limits) => counts.take(key, limits) };
}

/** A take that Redis does not answer within this lets the request through. */
const TAKE_TIMEOUT_MS = 1000;

/** Redis when a URL is given; otherwise the cluster primary's memory in a cluster worker, this process's memory elsewhere. */
export async function openRateLimiter(redisUrl: string | undefined, prefix: string): Promise<RateLimiter> {
  if (redisUrl) return RedisRateLimiter.connect(redisUrl, prefix);
  return cluster.isWorker ? new ClusterRateLimiter() : new MemoryRateLimiter();
}

/** The limits of a rate pair; a rate of 0 is no limit. */
export function limitsOf(perMinute: number, perHour: number): RateLimit[] {
  return [
    ...(perMinute > 0 ? [{ limit: perMinute, windowSeconds: 60 }] : []),
    ...(perHour > 0 ? [{ limit: perHour, windowSeconds: 3600 }] : []),
  ];
}

let shared: Promise<RateLimiter> | undefined;

/** The process's limiter: on REDIS_URL's Redis (under REDIS_CHANNEL_PREFIX) when it is set, else in memory; opened on first use. */
export function rateLimiter(settings: { REDIS_URL?: string; REDIS_CHANNEL_PREFIX: string }): Promise<RateLimiter> {
  shared ??= openRateLimiter(settings.REDIS_URL, settings.REDIS_CHANNEL_PREFIX).catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/** Closes the process's limiter (a stopping process). */
export async function closeRateLimiter(): Promise<void> {
  const opened = shared;
  shared = undefined;
  await (await opened?.catch(() => undefined))?.close();
}
