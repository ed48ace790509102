import { ArgsType, Field, ObjectType } from 'type-graphql';
import { EnvironmentInProjectArgs } from '../environments/environment.inputs.js';

@ObjectType('IngestionRestriction')
export class IngestionRestrictionRecord {
  @Field({ description: 'skip_person_processing, drop_event_from_ingestion, force_overflow_from_ingestion or redirect_to_dlq.' })
  restriction_type!: string;

  @Field(() => [String])
  distinct_ids!: string[];

  @Field(() => [String])
  session_ids!: string[];

  @Field(() => [String])
  event_names!: string[];

  @Field(() => [String])
  event_uuids!: string[];

  @Field(() => [String], { description: 'analytics and/or session_recordings.' })
  pipelines!: string[];
}

@ArgsType()
export class RestrictionTypeArgs extends EnvironmentInProjectArgs {
  @Field()
  restriction_type!: string;
}

/** A restriction to set (replacing one of the same type); lists not given are empty. */
@ArgsType()
export class SetIngestionRestrictionArgs extends RestrictionTypeArgs {
  @Field(() => [String], { nullable: true })
  distinct_ids?: string[];

  @Field(() => [String], { nullable: true })
  session_ids?: string[];

  @Field(() => [String], { nullable: true })
  event_names?: string[];

  @Field(() => [String], { nullable: true })
  event_uuids?: string[];

  @Field(() => [String], { nullable: true, description: 'Defaults to both pipelines.' })
  pipelines?: string[];
}
