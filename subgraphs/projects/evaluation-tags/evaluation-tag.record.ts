import { ArgsType, Field, Int, ObjectType } from 'type-graphql';
import { EnvironmentInProjectArgs } from '../environments/environment.inputs.js';

@ObjectType('EvaluationTag')
export class EvaluationTagRecord {
  @Field(() => Int)
  id!: number;

  @Field()
  name!: string;
}

@ObjectType('DefaultEvaluationTags')
export class DefaultEvaluationTags {
  @Field(() => [EvaluationTagRecord])
  default_evaluation_tags!: EvaluationTagRecord[];

  @Field({ description: 'The `default_evaluation_contexts_enabled` setting.' })
  enabled!: boolean;
}

@ObjectType('EvaluationTagAdded')
export class EvaluationTagAdded extends EvaluationTagRecord {
  @Field({ description: 'False when the tag was there already.' })
  created!: boolean;
}

@ArgsType()
export class EvaluationTagArgs extends EnvironmentInProjectArgs {
  @Field({ description: 'Trimmed and lower-cased; at most 255 characters.' })
  tag_name!: string;
}
