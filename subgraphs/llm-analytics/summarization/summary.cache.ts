import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../shared/logger.js';
import type { KeyValueStore, PubSub } from '../../shared/pubsub/pubsub.js';
import { SummaryCacheEntry } from './summary-cache.entity.js';

export const SUMMARY_TTL_SECONDS = 3600;

/** What a summary cache keeps of one summary: the answer, and the title batch_check shows. */
export interface CachedSummary<T = unknown> {
  title: string;
  body: T;
}

/**
 * Summaries for an hour: in Redis when the platform has it (every process sees them), else in
 * PostgreSQL. A cache that fails is a miss, never an error: the summary is made again.
 */
export class SummaryCache {
  constructor(
    private readonly em: EntityManager,
    pubsub: PubSub,
    private readonly log: Logger,
    private readonly redis: KeyValueStore | undefined = pubsub.store,
  ) {}

  async get<T>(key: string): Promise<CachedSummary<T> | null> {
    return (await this.getMany<T>([key]))[0] ?? null;
  }

  async getMany<T>(keys: string[]): Promise<(CachedSummary<T> | null)[]> {
    if (keys.length === 0) return [];
    try {
      if (this.redis) return (await this.redis.getMany(keys)).map((value) => (value === null ? null : (JSON.parse(value) as CachedSummary<T>)));
      const rows = await this.em.find(SummaryCacheEntry, { key: { $in: keys }, expires_at: { $gt: new Date() } });
      const found = new Map(rows.map((row) => [row.key, row.value as CachedSummary<T>]));
      return keys.map((key) => found.get(key) ?? null);
    } catch (error) {
      this.log.warn({ err: error }, 'summary cache read failed; treated as a miss');
      return keys.map(() => null);
    }
  }

  async set(key: string, value: CachedSummary): Promise<void> {
    try {
      if (this.redis) return await this.redis.set(key, JSON.stringify(value), SUMMARY_TTL_SECONDS);
      const expires_at = new Date(Date.now() + SUMMARY_TTL_SECONDS * 1000);
      await this.em.upsert(SummaryCacheEntry, { key, value, expires_at }, { onConflictFields: ['key'], onConflictAction: 'merge', onConflictMergeFields: ['value', 'expires_at'] });
    } catch (error) {
      this.log.warn({ err: error }, 'summary cache write failed');
    }
  }
}

/** Drops expired PostgreSQL entries (Redis expires its own). */
export async function purgeExpiredSummaries(em: EntityManager): Promise<number> {
  return em.nativeDelete(SummaryCacheEntry, { expires_at: { $lte: new Date() } });
}
