import { Authorized, Directive, Field, Int, ObjectType } from 'type-graphql';
import { SETTING_NAMES } from '../settings/setting.catalog.js';
import { declareSettingFields } from '../settings/settings.fields.js';
import { TeamRecord } from '../team.record.js';

/**
 * An environment as callers read it: identity, tokens and every setting (API document section 2,
 * "Environment settings"). Everything but the id needs `project:read`.
 */
@ObjectType('Environment')
@Directive('@key(fields: "id")')
export class EnvironmentRecord extends TeamRecord {
  @Field(() => Int)
  id!: number;

  @Authorized('project:read')
  @Field(() => Int, { description: 'The project this environment belongs to.' })
  project_id!: number;

  @Authorized('project:read')
  @Field()
  name!: string;
}

declareSettingFields(EnvironmentRecord, SETTING_NAMES, 'record');
