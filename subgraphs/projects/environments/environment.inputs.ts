import { ArgsType, Field, Int } from 'type-graphql';
import { SETTING_NAMES } from '../settings/setting.catalog.js';
import { declareSettingFields } from '../settings/settings.fields.js';

@ArgsType()
export class EnvironmentArgs {
  @Field(() => Int)
  id!: number;
}

@ArgsType()
export class EnvironmentInProjectArgs extends EnvironmentArgs {
  @Field(() => Int, { nullable: true, description: 'The project; when given, the environment must belong to it.' })
  project_id?: number;
}

@ArgsType()
export class EnvironmentIntentArgs extends EnvironmentInProjectArgs {
  @Field({ description: 'A product key such as `session_replay` or `feature_flags`.' })
  product_type!: string;

  @Field(() => String, { nullable: true, description: 'Where in the app the intent was expressed.' })
  intent_context?: string;
}

@ArgsType()
export class SettingsAsOfArgs extends EnvironmentInProjectArgs {
  @Field({ description: 'An ISO 8601 instant; without a zone it is UTC.' })
  at!: string;

  @Field(() => [String], { nullable: true, description: 'Only these setting keys (repeated, or separated by commas); unknown ones come back null.' })
  scope?: string[];
}

/** The fields to change; the others stay. */
@ArgsType()
export class UpdateEnvironmentArgs {
  @Field(() => Int)
  id!: number;

  @Field(() => Int, { nullable: true, description: 'The project; when given, the environment must belong to it.' })
  project_id?: number;

  @Field(() => String, { nullable: true, description: '1 to 200 characters; needs project:write and admin.' })
  name?: string;

  [setting: string]: unknown;
}
declareSettingFields(UpdateEnvironmentArgs, SETTING_NAMES, 'arguments');
