import { ArgsType, Field, ID, Int } from 'type-graphql';
import { EnvironmentArgs } from '../../shared/subgraph/environment.args.js';

/** Which events of an environment: by name, distinct id and time (all optional, combined). */
@ArgsType()
export class EventFilterArgs extends EnvironmentArgs {
  @Field(() => String, { nullable: true, description: 'Only events of this name.' })
  event?: string | null;

  @Field(() => String, { nullable: true, description: 'Only events of this distinct id.' })
  distinct_id?: string | null;

  @Field(() => String, { nullable: true, description: 'Only events at or after this time (ISO 8601).' })
  after?: string | null;

  @Field(() => String, { nullable: true, description: 'Only events before this time (ISO 8601).' })
  before?: string | null;
}

@ArgsType()
export class ListEventsArgs extends EventFilterArgs {
  @Field(() => Int, { nullable: true, description: 'Page size (default 100, at most 1000).' })
  limit?: number;

  @Field(() => String, { nullable: true, description: "Where the page starts: a previous page's `next_cursor`." })
  cursor?: string | null;
}

@ArgsType()
export class EventArgs extends EnvironmentArgs {
  @Field(() => ID, { description: "The event's uuid." })
  id!: string;
}
