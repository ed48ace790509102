import { randomUUID } from 'node:crypto';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { User } from '../users/user.entity.js';

/** A personal API key. Only its SHA-256 is stored; the value is shown once, when it is created. */
@ObjectType('PersonalApiKey')
@Entity({ tableName: 'personal_api_keys' })
export class PersonalApiKey {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  @Index()
  user!: User;

  @Field()
  @Property({ type: 'text' })
  label!: string;

  /** `sha256$<hex>` of the full key. */
  @Property({ type: 'text', unique: true, hidden: true })
  secure_value!: string;

  @Field({ description: 'The key with all but its first and last four characters hidden.' })
  @Property({ type: 'text' })
  mask_value!: string;

  @Field(() => [String])
  @Property({ type: 'json' })
  scopes: string[] = [];

  @Field()
  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Field(() => Date, { nullable: true, description: 'Last authentication with this key (updated at most once a minute).' })
  @Property({ type: 'timestamptz', nullable: true })
  last_used_at: Date | null = null;
}
