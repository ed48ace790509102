import { randomUUID } from 'node:crypto';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

/** Whose profile a config lays out: persons, or one of the five group-type slots. */
export enum CustomerProfileScope {
  person = 'person',
  group_0 = 'group_0',
  group_1 = 'group_1',
  group_2 = 'group_2',
  group_3 = 'group_3',
  group_4 = 'group_4',
}

registerEnumType(CustomerProfileScope, {
  name: 'CustomerProfileScope',
  description: 'person, or group_0 … group_4 (the group-type slots).',
});

/** A layout of a customer profile page: free-form `content` and `sidebar` kept as given. */
@ObjectType('CustomerProfileConfig')
@Entity({ tableName: 'customer_profile_configs' })
@Index({ properties: ['environment_id', 'created_at'] })
export class CustomerProfileConfig {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** The environment (team) it belongs to; `:project_id` in the REST path. */
  @Property({ type: 'integer' })
  environment_id!: number;

  /** The environment's project, for the cross-subgraph `project` field. */
  @Property({ type: 'integer' })
  project_id!: number;

  @Field(() => CustomerProfileScope)
  @Enum({ items: () => CustomerProfileScope })
  scope!: CustomerProfileScope;

  @Field(() => JSONScalar, { nullable: true, description: 'Free-form layout of the main area (object or array).' })
  @Property({ type: 'jsonb' })
  content: unknown = {};

  @Field(() => JSONScalar, { nullable: true, description: 'Free-form layout of the sidebar (object or array).' })
  @Property({ type: 'jsonb' })
  sidebar: unknown = {};

  /** The accounts subgraph's user id of the creator. */
  @Property({ type: 'integer', nullable: true })
  created_by_id: number | null = null;

  @Field()
  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Field()
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updated_at: Date = new Date();
}
