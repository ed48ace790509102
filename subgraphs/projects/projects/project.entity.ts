import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { Authorized, Directive, Field, Int, ObjectType } from 'type-graphql';
import { Organization } from '../organizations/organization.entity.js';

/**
 * A project: a product being analysed, with one or more environments. `id` and `name` are its
 * brief form, readable wherever a record that the caller may read embeds the project; the rest
 * needs `project:read`.
 */
@ObjectType('Project')
@Directive('@key(fields: "id")')
@Entity({ tableName: 'projects' })
export class Project {
  /** Taken from the project's first environment, so the two share it. */
  @Field(() => Int)
  @PrimaryKey({ autoincrement: false })
  id!: number;

  @Authorized('project:read')
  @Field(() => Organization)
  @ManyToOne(() => Organization, { deleteRule: 'cascade' })
  @Index()
  organization!: Organization;

  @Field()
  @Property({ type: 'text' })
  name!: string;

  @Authorized('project:read')
  @Field()
  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
