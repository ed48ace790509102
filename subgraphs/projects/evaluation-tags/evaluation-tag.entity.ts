import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Environment } from '../environments/environment.entity.js';

/** A tag that new feature flags of an environment get by default (PostHog's evaluation tags). */
@Entity({ tableName: 'default_evaluation_tags' })
@Unique({ properties: ['environment', 'name'] })
export class EvaluationTag {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Environment, { deleteRule: 'cascade' })
  environment!: Environment;

  /** Trimmed and lower-cased. */
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
