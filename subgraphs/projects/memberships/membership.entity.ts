import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Organization } from '../organizations/organization.entity.js';

/** A user's membership of an organization, with its level (member 1, admin 8, owner 15). */
@Entity({ tableName: 'memberships' })
@Unique({ properties: ['organization', 'user_id'] })
@Unique({ properties: ['organization', 'user_uuid'] })
export class Membership {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Organization, { deleteRule: 'cascade' })
  organization!: Organization;

  /** The accounts subgraph's user id (a plain id: users live in another subgraph). */
  @Index()
  @Property({ type: 'integer' })
  user_id!: number;

  /**
   * The same user's uuid, which never changes: the REST paths name a member by it, and keeping it
   * here answers them without asking the accounts subgraph (which depends on this one).
   */
  @Property({ type: 'uuid' })
  user_uuid!: string;

  @Property({ type: 'smallint' })
  level!: number;

  /** When the user joined (PostHog's `joined_at`). */
  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updated_at: Date = new Date();
}
