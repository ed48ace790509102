import { Field, ID, Int, ObjectType } from 'type-graphql';
import type { SettingName } from '../settings/setting.catalog.js';
import { declareSettingFields } from '../settings/settings.fields.js';

/** The settings PostHog's list of projects shows beside identity and token (its basic serializer). */
export const BASIC_SETTING_NAMES = [
  'completed_snippet_onboarding',
  'has_completed_onboarding_for',
  'is_demo',
  'timezone',
  'access_control',
] as const satisfies readonly SettingName[];

/**
 * A project as the list shows it, as PostHog lists projects: identity, token and a few settings.
 * The whole record, with every setting, is `project(id)`. Reachable only through `projects`,
 * which needs `project:read`.
 */
@ObjectType('ProjectBasic')
export class ProjectBasicRecord {
  @Field(() => Int)
  id!: number;

  @Field()
  uuid!: string;

  @Field(() => ID, { description: 'The organization id.' })
  organization!: string;

  @Field({ description: 'The project API token (`phc_`), used by SDKs and /batch/.' })
  api_token!: string;

  @Field()
  name!: string;

  @Field({ description: 'Whether any event has been ingested yet.' })
  ingested_event!: boolean;

  [setting: string]: unknown;
}

declareSettingFields(ProjectBasicRecord, BASIC_SETTING_NAMES, 'basic');
