import { Entity, Index, Property, Unique } from '@mikro-orm/core';
import { EnvironmentEntity } from '../../shared/db/base.entity.js';

/**
 * A saved endpoint: a named query of an environment, run by its name. Its query, description and
 * cache age are those of its current version (kept here too, so that a list reads one table).
 */
@Entity({ tableName: 'endpoints' })
@Unique({ properties: ['environment_id', 'name'] })
@Index({ properties: ['environment_id', 'created_at'] })
export class Endpoint extends EnvironmentEntity {
  @Property({ type: 'integer' })
  project_id!: number;

  /** Its key in paths; never changes. */
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  description: string = '';

  /** The current version's query node (`HogQLQuery` or `TrendsQuery`). */
  @Property({ type: 'jsonb' })
  query!: Record<string, unknown>;

  @Property({ type: 'boolean' })
  is_active: boolean = true;

  @Property({ type: 'integer', nullable: true })
  cache_age_seconds: number | null = null;

  @Property({ type: 'integer' })
  current_version: number = 1;

  /** Short id of the insight it was made from, as the client gave it. */
  @Property({ type: 'text', nullable: true })
  derived_from_insight: string | null = null;

  @Property({ type: 'integer', nullable: true })
  created_by_id: number | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updated_at: Date = new Date();

  /** Last run by a personal API key, written at most hourly (PostHog's rule). */
  @Property({ type: 'timestamptz', nullable: true })
  last_executed_at: Date | null = null;
}
