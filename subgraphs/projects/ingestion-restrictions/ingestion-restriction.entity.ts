import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Environment } from '../environments/environment.entity.js';

export const RESTRICTION_TYPES = ['skip_person_processing', 'drop_event_from_ingestion', 'force_overflow_from_ingestion', 'redirect_to_dlq'] as const;
export const PIPELINES = ['analytics', 'session_recordings'] as const;

/** How ingestion treats some events of an environment's token (PostHog's event ingestion restrictions). */
@Entity({ tableName: 'ingestion_restrictions' })
@Unique({ properties: ['environment', 'restriction_type'] })
export class IngestionRestriction {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Environment, { deleteRule: 'cascade' })
  environment!: Environment;

  @Property({ type: 'text' })
  restriction_type!: string;

  @Property({ type: 'jsonb' })
  distinct_ids: string[] = [];

  @Property({ type: 'jsonb' })
  session_ids: string[] = [];

  @Property({ type: 'jsonb' })
  event_names: string[] = [];

  @Property({ type: 'jsonb' })
  event_uuids: string[] = [];

  @Property({ type: 'jsonb' })
  pipelines: string[] = [...PIPELINES];

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
