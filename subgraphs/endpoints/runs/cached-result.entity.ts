import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * A computed run answer, served again while it is younger than the endpoint's cache age
 * (`refresh: cache`). Kept in PostgreSQL so that every process serves the same cache.
 */
@Entity({ tableName: 'cached_results' })
@Index({ properties: ['environment_id', 'computed_at'] })
export class CachedResult {
  /** A hash of the team, the version and the compiled query with its values. */
  @PrimaryKey({ type: 'text' })
  cache_key!: string;

  @Property({ type: 'integer' })
  environment_id!: number;

  @Property({ type: 'uuid' })
  version_id!: string;

  @Property({ type: 'jsonb' })
  result!: Record<string, unknown>;

  @Property({ type: 'timestamptz' })
  computed_at!: Date;
}
