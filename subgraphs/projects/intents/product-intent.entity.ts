import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Environment } from '../environments/environment.entity.js';

/** Products an environment's users said they want to use, and when they finished onboarding. */
export const PRODUCT_TYPES = [
  'product_analytics',
  'web_analytics',
  'session_replay',
  'feature_flags',
  'experiments',
  'surveys',
  'data_warehouse',
  'error_tracking',
  'llm_analytics',
  'max_ai',
  'revenue_analytics',
  'messaging',
  'logs',
  'endpoints',
] as const;

@Entity({ tableName: 'product_intents' })
@Unique({ properties: ['environment', 'product_type'] })
export class ProductIntent {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Environment, { deleteRule: 'cascade' })
  environment!: Environment;

  @Property({ type: 'text' })
  product_type!: string;

  /** How often each context (where in the app the intent was shown) recorded it. */
  @Property({ type: 'jsonb' })
  contexts: Record<string, number> = {};

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updated_at: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  onboarding_completed_at: Date | null = null;
}
