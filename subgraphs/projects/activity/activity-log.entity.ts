import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

export interface ActivityChange {
  type: 'Project' | 'Team';
  action: 'created' | 'changed' | 'deleted';
  field: string | null;
  before: unknown;
  after: unknown;
}

/**
 * One change to a project or an environment: who, when, which fields, before and after. Written
 * in the transaction of the change itself, so the log is complete and settings can be rebuilt
 * exactly at any instant. Secret values are masked before they get here.
 */
@Entity({ tableName: 'activity_log' })
@Index({ properties: ['environment_id', 'created_at'] })
@Index({ properties: ['project_id', 'created_at'] })
export class ActivityLog {
  /**
   * Increasing in the order changes were made: changes to one environment are serialised by a
   * row lock, so replaying by id undoes them in exactly the reverse order.
   */
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'uuid' })
  organization_id!: string;

  @Property({ type: 'integer' })
  project_id!: number;

  /** The environment changed; null for a change to the project itself. */
  @Property({ type: 'integer', nullable: true })
  environment_id: number | null = null;

  /** `Project` or `Team` (PostHog's name for an environment). */
  @Property({ type: 'text' })
  scope!: 'Project' | 'Team';

  @Property({ type: 'text' })
  activity!: 'created' | 'updated' | 'deleted';

  /** The accounts subgraph's user id; null for the system. */
  @Property({ type: 'integer', nullable: true })
  user_id: number | null = null;

  @Property({ type: 'text' })
  item_name!: string;

  @Property({ type: 'jsonb' })
  changes: ActivityChange[] = [];

  /** Clock time of the change, with microseconds: the order settings_as_of replays. */
  @Property({ type: 'timestamptz', length: 6 })
  created_at: Date = new Date();
}
