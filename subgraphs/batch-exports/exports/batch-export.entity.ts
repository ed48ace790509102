import { Entity, Index, Property } from '@mikro-orm/core';
import { EnvironmentEntity } from '../../shared/db/base.entity.js';

/**
 * A batch export: what to export (a model, optionally shaped by a HogQL query and filtered), where
 * (a destination type with its config; the secret fields sealed apart), and how often (an interval
 * with its offset and timezone). `scheduled_until` is the end of the last interval the scheduler
 * made a run for: it moves forward only, so every interval becomes exactly one scheduled run.
 */
@Entity({ tableName: 'batch_exports' })
@Index({ properties: ['environment_id', 'created_at'] })
export class BatchExport extends EnvironmentEntity {
  @Property({ type: 'integer' })
  project_id!: number;

  @Property({ type: 'text' })
  name!: string;

  /** `events` or `persons`. */
  @Property({ type: 'text' })
  model!: string;

  /** `S3`, `Postgres` or `HTTP`. */
  @Property({ type: 'text' })
  destination_type!: string;

  /** The destination's config without its secret fields. */
  @Property({ type: 'jsonb' })
  destination_config!: Record<string, unknown>;

  /** The secret fields of the config as one JSON object, sealed with SECRET_KEY; null when none were given. */
  @Property({ type: 'text', nullable: true })
  destination_secrets: string | null = null;

  /** `hour`, `day`, `week`, `every 5 minutes` or `every 15 minutes`. */
  @Property({ type: 'text' })
  interval!: string;

  /** Seconds after the interval's natural start, as PostHog stores it: `offset_day * 86400 + offset_hour * 3600`. */
  @Property({ type: 'integer', nullable: true })
  interval_offset: number | null = null;

  /** The IANA zone whose clock day and week intervals follow. */
  @Property({ type: 'text' })
  timezone: string = 'UTC';

  @Property({ type: 'boolean' })
  paused: boolean = false;

  @Property({ type: 'timestamptz', nullable: true })
  last_paused_at: Date | null = null;

  /** No run ends before this. */
  @Property({ type: 'timestamptz', nullable: true })
  start_at: Date | null = null;

  /** No run ends after this. */
  @Property({ type: 'timestamptz', nullable: true })
  end_at: Date | null = null;

  @Property({ type: 'text', nullable: true })
  hogql_query: string | null = null;

  /** What `hogql_query` exports: `{fields: [{expression, alias}], values, hogql_query}` (read-only). */
  @Property({ type: 'jsonb', nullable: true })
  schema: Record<string, unknown> | null = null;

  /** Property filters on the exported events, PostHog's shape. */
  @Property({ type: 'jsonb', nullable: true })
  filters: unknown[] | null = null;

  @Property({ type: 'integer', nullable: true })
  created_by_id: number | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  last_updated_at: Date = new Date();

  /** The end of the last interval a scheduled run was made for. */
  @Property({ type: 'timestamptz' })
  scheduled_until!: Date;
}
