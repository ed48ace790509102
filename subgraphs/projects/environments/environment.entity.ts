import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { Authorized, Directive, Field, Int, ObjectType } from 'type-graphql';
import { Project } from '../projects/project.entity.js';

/**
 * An environment (PostHog's team): where events, settings and most records live. The first
 * environment of a project has the project's id.
 */
@ObjectType('Environment')
@Directive('@key(fields: "id")')
@Entity({ tableName: 'environments' })
export class Environment {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Field(() => Project)
  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  @Index()
  project!: Project;

  @Authorized('project:read')
  @Field()
  @Property({ type: 'text' })
  name!: string;

  /** `sha256$<hex>` of the project API token (`phc_`), to find the environment at ingestion. */
  @Property({ type: 'text', unique: true, hidden: true })
  api_token_hash!: string;

  /** The token itself, sealed with SECRET_KEY: it is shown to members, so it must be recoverable. */
  @Property({ type: 'text', hidden: true })
  api_token_sealed!: string;

  @Authorized('project:read')
  @Field()
  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
