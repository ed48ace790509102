import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** Cached summaries when there is no Redis: the same keys and expiry, in PostgreSQL. */
@Entity({ tableName: 'summary_cache' })
export class SummaryCacheEntry {
  @PrimaryKey({ type: 'text' })
  key!: string;

  @Property({ type: 'jsonb' })
  value!: unknown;

  @Index()
  @Property({ type: 'timestamptz' })
  expires_at!: Date;
}
