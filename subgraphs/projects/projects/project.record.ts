import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { PROJECT_SETTING_NAMES } from '../settings/setting.catalog.js';
import { declareSettingFields } from '../settings/settings.fields.js';
import { TeamRecord } from '../team.record.js';

/**
 * A project as callers read it: identity, tokens and the settings of its primary environment (API
 * document section 2, "Project settings fields"). `id` and `name` are its brief form, readable
 * wherever a record the caller may read embeds the project; the rest needs `project:read`.
 */
@ObjectType('Project')
@Directive('@key(fields: "id")')
export class ProjectRecord extends TeamRecord {
  @Field(() => Int)
  id!: number;

  @Field()
  name!: string;
}

declareSettingFields(ProjectRecord, PROJECT_SETTING_NAMES, 'record');
