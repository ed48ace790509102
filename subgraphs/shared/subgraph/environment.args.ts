import { ArgsType, Field, Int } from 'type-graphql';
import { PageArgs } from './pagination.js';

/** An operation on an environment's data: `:project_id` in the REST path (PostHog's name for it). */
@ArgsType()
export class EnvironmentArgs {
  @Field(() => Int, { description: 'The environment (project) id.' })
  project_id!: number;
}

/** A page of an environment's records. */
@ArgsType()
export class EnvironmentPageArgs extends PageArgs {
  @Field(() => Int, { description: 'The environment (project) id.' })
  project_id!: number;
}
