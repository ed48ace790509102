import { randomUUID } from 'node:crypto';
import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

/** A person with an account. The GraphQL type is the brief form other records embed. */
@ObjectType('User', { description: 'A user account (brief form, embedded in other records).' })
@Directive('@key(fields: "id")')
@Entity({ tableName: 'users' })
export class User {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Field()
  @Property({ type: 'uuid', unique: true })
  uuid: string = randomUUID();

  @Field({ description: 'The identifier this user has in captured events.' })
  @Property({ type: 'text', unique: true })
  distinct_id: string = randomUUID();

  @Field()
  @Property({ type: 'text' })
  first_name: string = '';

  @Field()
  @Property({ type: 'text' })
  last_name: string = '';

  @Field()
  @Property({ type: 'text', unique: true })
  email!: string;

  @Property({ type: 'text', hidden: true })
  password_hash!: string;

  @Field()
  @Property({ type: 'boolean' })
  is_email_verified: boolean = false;

  @Property({ type: 'boolean' })
  is_active: boolean = true;

  @Field(() => JSONScalar, { nullable: true, description: 'Free-form settings of the hedgehog mascot.' })
  @Property({ type: 'json', nullable: true })
  hedgehog_config: Record<string, unknown> | null = null;

  @Field(() => String, { nullable: true, description: 'Role at the organization, as the user described it.' })
  @Property({ type: 'text', nullable: true })
  role_at_organization: string | null = null;

  /** A new address waiting for verification; `email` stays in use until then. */
  @Property({ type: 'text', nullable: true })
  pending_email: string | null = null;

  /** May address other users' accounts and make staff. */
  @Property({ type: 'boolean' })
  is_staff: boolean = false;

  @Property({ type: 'boolean' })
  anonymize_data: boolean = false;

  /** The user's overrides only; the record shows them over the defaults. */
  @Property({ type: 'json', defaultRaw: `'{}'` })
  notification_settings: Record<string, unknown> = {};

  @Property({ type: 'text' })
  toolbar_mode: string = 'toolbar';

  @Property({ type: 'text', nullable: true })
  theme_mode: string | null = null;

  @Property({ type: 'json', nullable: true })
  events_column_config: unknown = null;

  @Property({ type: 'json', nullable: true })
  has_seen_product_intro_for: unknown = null;

  /** The organization and environment the user works in; plain ids of the projects subgraph. */
  @Property({ type: 'uuid', nullable: true })
  current_organization_id: string | null = null;

  @Property({ type: 'integer', nullable: true })
  current_team_id: number | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  password_changed_at: Date | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updated_at: Date = new Date();
}
