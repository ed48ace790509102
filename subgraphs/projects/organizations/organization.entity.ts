import { randomUUID } from 'node:crypto';
import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Authorized, Directive, Field, ID, ObjectType } from 'type-graphql';

@ObjectType('Organization', { description: 'An organization: it owns projects and has members.' })
@Directive('@key(fields: "id")')
@Entity({ tableName: 'organizations' })
export class Organization {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Authorized('organization:read')
  @Field()
  @Property({ type: 'text' })
  name!: string;

  @Authorized('organization:read')
  @Field()
  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
