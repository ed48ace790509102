import { Authorized, Directive, Field, ID, Int, ObjectType } from 'type-graphql';
import { ProductIntentRecord } from '../intents/product-intent.record.js';
import { PROJECT_SETTING_NAMES } from '../settings/setting.spec.js';
import { declareSettingFields } from '../settings/settings.fields.js';

/**
 * A project as callers read it: identity, tokens and the settings of its primary environment (API
 * document section 2, "Project settings fields"). `id` and `name` are its brief form, readable
 * wherever a record the caller may read embeds the project; the rest needs `project:read`.
 */
@ObjectType('Project')
@Directive('@key(fields: "id")')
export class ProjectRecord {
  @Field(() => Int)
  id!: number;

  @Field()
  name!: string;

  @Authorized('project:read')
  @Field()
  uuid!: string;

  @Authorized('project:read')
  @Field(() => ID, { description: 'The organization id.' })
  organization!: string;

  @Authorized('project:read')
  @Field({ description: 'The project API token (`phc_`) of the primary environment.' })
  api_token!: string;

  @Authorized('project:read')
  @Field(() => String, { nullable: true })
  secret_api_token!: string | null;

  @Authorized('project:read')
  @Field(() => String, { nullable: true })
  secret_api_token_backup!: string | null;

  @Authorized('project:read')
  @Field(() => [ProductIntentRecord], { description: 'Products its users said they want, and onboarding completed.' })
  product_intents!: ProductIntentRecord[];

  @Authorized('project:read')
  @Field(() => Int, { nullable: true, description: 'The caller\'s level: 1 member, 8 admin, 15 owner.' })
  effective_membership_level!: number | null;

  @Authorized('project:read')
  @Field()
  created_at!: Date;

  @Authorized('project:read')
  @Field()
  updated_at!: Date;

  [setting: string]: unknown;
}

declareSettingFields(ProjectRecord, PROJECT_SETTING_NAMES, 'record');
