import { ArgsType, Field, ID } from 'type-graphql';
import { EnvironmentArgs, EnvironmentPageArgs } from '../../shared/subgraph/environment.args.js';

@ArgsType()
export class ListPersonsArgs extends EnvironmentPageArgs {
  @Field(() => String, { nullable: true, description: 'Only the person this distinct id names.' })
  distinct_id?: string | null;

  @Field(() => String, { nullable: true, description: 'Persons whose properties or distinct ids contain this text (case-insensitive).' })
  search?: string | null;
}

@ArgsType()
export class PersonArgs extends EnvironmentArgs {
  @Field(() => ID, { description: "The person's uuid." })
  id!: string;
}
