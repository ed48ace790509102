import { ArgsType, Field, ID, Int } from 'type-graphql';
import { PageArgs } from '../../shared/subgraph/pagination.js';
import { PROJECT_SETTING_NAMES } from '../settings/setting.catalog.js';
import { declareSettingFields } from '../settings/settings.fields.js';

@ArgsType()
export class ListProjectsArgs extends PageArgs {
  @Field(() => ID)
  organization_id!: string;

  @Field(() => String, { nullable: true, description: 'Case-insensitive part of the project name.' })
  search?: string;
}

@ArgsType()
export class ProjectArgs {
  @Field(() => ID, { nullable: true, description: 'The organization; when given, the project must belong to it.' })
  organization_id?: string;

  @Field(() => Int)
  id!: number;
}

@ArgsType()
export class ProjectActivityArgs extends PageArgs {
  @Field(() => ID, { nullable: true, description: 'The organization; when given, the project must belong to it.' })
  organization_id?: string;

  @Field(() => Int)
  id!: number;

  @Field(() => Int, { nullable: true, description: 'Page number from 1, as PostHog pages the activity log (instead of `offset`).' })
  page?: number;
}

@ArgsType()
export class ProjectIntentArgs extends ProjectArgs {
  @Field({ description: 'A product key such as `session_replay` or `feature_flags`.' })
  product_type!: string;

  @Field(() => String, { nullable: true, description: 'Where in the app the intent was expressed.' })
  intent_context?: string;
}

/** Moves a project: the path names the source organization, the body the target (as PostHog's clients send it). */
@ArgsType()
export class ChangeOrganizationArgs {
  @Field(() => ID, { nullable: true, description: 'The organization the project is in now.' })
  source_organization_id?: string;

  @Field(() => Int)
  id!: number;

  @Field(() => ID, { description: 'The organization to move it to.' })
  organization_id!: string;
}

/** Name and settings of a new project; settings not given take their defaults. */
@ArgsType()
export class CreateProjectArgs {
  @Field(() => ID)
  organization_id!: string;

  @Field({ description: '1 to 200 characters.' })
  name!: string;

  [setting: string]: unknown;
}
declareSettingFields(CreateProjectArgs, PROJECT_SETTING_NAMES, 'arguments');

/** The fields to change; the others stay. */
@ArgsType()
export class UpdateProjectArgs {
  @Field(() => ID)
  organization_id!: string;

  @Field(() => Int)
  id!: number;

  @Field(() => String, { nullable: true, description: '1 to 200 characters; needs project:write and admin.' })
  name?: string;

  [setting: string]: unknown;
}
declareSettingFields(UpdateProjectArgs, PROJECT_SETTING_NAMES, 'arguments');
