import { ArgsType, Field, Int } from 'type-graphql';
import { EnvironmentArgs, EnvironmentPageArgs } from '../../shared/subgraph/environment.args.js';

@ArgsType()
export class ListGroupsArgs extends EnvironmentPageArgs {
  @Field(() => Int, { description: "The group type's index (0 to 4; the project's `group_types` name them)." })
  group_type_index!: number;

  @Field(() => String, { nullable: true, description: 'Groups whose key or properties contain this text (case-insensitive).' })
  search?: string | null;
}

@ArgsType()
export class GroupArgs extends EnvironmentArgs {
  @Field(() => Int)
  group_type_index!: number;

  @Field()
  group_key!: string;
}
