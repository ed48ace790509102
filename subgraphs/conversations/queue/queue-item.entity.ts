import { Entity, Index, Property } from '@mikro-orm/core';
import { UuidEntity } from '../../shared/db/base.entity.js';

/**
 * A follow-up typed while the assistant was busy, waiting its turn. PostHog keeps these in a cache
 * for an hour; here they are rows, so a restart loses none.
 */
@Entity({ tableName: 'queue_items' })
@Index({ properties: ['conversation_id', 'created_at'] })
export class QueueItem extends UuidEntity {
  @Property({ type: 'uuid' })
  conversation_id!: string;

  @Property({ type: 'text' })
  content!: string;

  @Property({ type: 'jsonb', nullable: true })
  contextual_tools: unknown = null;

  @Property({ type: 'jsonb', nullable: true })
  ui_context: unknown = null;

  @Property({ type: 'jsonb', nullable: true })
  billing_context: unknown = null;

  @Property({ type: 'text', nullable: true })
  agent_mode: string | null = null;

  @Property({ type: 'text', nullable: true })
  session_id: string | null = null;

  /** The scopes of the key that queued it: its run's tools read with these. */
  @Property({ type: 'jsonb' })
  scopes: string[] = [];

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
