import { Field, ID, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

@ObjectType('Event', { description: "An ingested event, in the shape of PostHog's event API." })
export class EventRecord {
  @Field(() => ID, { description: "The event's uuid." })
  id!: string;

  @Field()
  distinct_id!: string;

  @Field()
  event!: string;

  @Field({ description: 'When it happened: ISO 8601 in UTC with microseconds (2024-05-01T12:00:00.123456Z).' })
  timestamp!: string;

  @Field(() => JSONScalar)
  properties!: Record<string, unknown>;
}

@ObjectType('EventList', { description: 'A page of events, newest first.' })
export class EventList {
  @Field(() => String, { nullable: true, description: 'Relative reference of the next page, null on the last.' })
  next!: string | null;

  @Field(() => String, { nullable: true, description: 'The `cursor` of the next page, null on the last.' })
  next_cursor!: string | null;

  @Field(() => [EventRecord])
  results!: EventRecord[];
}
