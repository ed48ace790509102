import { Field, ID, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

@ObjectType('Person', { description: "A person, in the shape of PostHog's person list." })
export class PersonRecord {
  @Field(() => ID, { description: "The person's uuid (PostHog's list gives it as `id` too)." })
  id!: string;

  @Field()
  uuid!: string;

  @Field({ description: '`person`.' })
  type!: 'person';

  @Field({ description: 'The `email`, `name` or `username` property, else the first distinct id.' })
  name!: string;

  @Field(() => [String], { description: 'Its distinct ids (at most 1000), in order.' })
  distinct_ids!: string[];

  @Field(() => JSONScalar)
  properties!: Record<string, unknown>;

  @Field()
  is_identified!: boolean;

  @Field({ description: 'The time of its earliest event.' })
  created_at!: Date;
}
