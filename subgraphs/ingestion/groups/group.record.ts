import { Field, Int, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

@ObjectType('Group', { description: "A group, in the shape of PostHog's group API." })
export class GroupRecord {
  @Field(() => Int)
  group_type_index!: number;

  @Field()
  group_key!: string;

  @Field(() => JSONScalar)
  group_properties!: Record<string, unknown>;

  @Field({ description: 'The time of its earliest update.' })
  created_at!: Date;
}
