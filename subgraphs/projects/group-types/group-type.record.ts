import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('GroupType', { description: "A project's group type, as PostHog's project record lists them." })
export class GroupTypeRecord {
  @Field()
  group_type!: string;

  @Field(() => Int)
  group_type_index!: number;

  @Field(() => String, { nullable: true })
  name_singular!: string | null;

  @Field(() => String, { nullable: true })
  name_plural!: string | null;
}
