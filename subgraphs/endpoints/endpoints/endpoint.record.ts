import { Field, ID, Int, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { MaterializationState } from './endpoint-version.entity.js';
import { UserStub } from './user.stub.js';

/** Where a version's materialized result stands (PostHog's `materialization` object). */
@ObjectType('EndpointMaterialization')
export class MaterializationRecord {
  @Field(() => MaterializationState, { nullable: true, description: 'Null when the version is not materialized.' })
  status!: MaterializationState | null;

  @Field({ description: 'Whether the query can be kept materialized; `reason` says why not.' })
  can_materialize!: boolean;

  @Field(() => String, { nullable: true })
  reason!: string | null;

  @Field(() => Date, { nullable: true })
  last_materialized_at!: Date | null;

  @Field(() => String, { nullable: true, description: 'Why the last refresh failed.' })
  error!: string | null;

  @Field(() => String, { nullable: true, description: '`5min`, `30min`, `1hour`, `6hour`, `12hour`, `24hour`, `7day` or `30day`.' })
  sync_frequency!: string | null;
}

/** A saved endpoint as PostHog's API shows it. */
@ObjectType('Endpoint')
export class EndpointRecord {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field()
  description!: string;

  @Field(() => JSONScalar, { description: 'The current version\'s query node: `HogQLQuery` or `TrendsQuery`.' })
  query!: Record<string, unknown>;

  @Field()
  is_active!: boolean;

  @Field(() => Int, { nullable: true })
  cache_age_seconds!: number | null;

  @Field({ description: 'The path that runs it.' })
  endpoint_path!: string;

  @Field({ description: 'The run path (absolute over REST).' })
  url!: string;

  @Field({ description: "The endpoint's page in the app." })
  ui_url!: string;

  @Field()
  created_at!: Date;

  @Field()
  updated_at!: Date;

  @Field(() => UserStub, { nullable: true })
  created_by!: UserStub | null;

  @Field({ description: "Whether the current version's result is kept materialized." })
  is_materialized!: boolean;

  @Field(() => Int)
  current_version!: number;

  @Field(() => Int)
  versions_count!: number;

  @Field(() => String, { nullable: true })
  derived_from_insight!: string | null;

  @Field(() => MaterializationRecord)
  materialization!: MaterializationRecord;

  @Field(() => Date, { nullable: true, description: 'Last run through a personal API key (updated at most hourly).' })
  last_executed_at!: Date | null;
}

/** One version of an endpoint: its query and settings when it was made, and its materialization. */
@ObjectType('EndpointVersion')
export class EndpointVersionRecord {
  @Field(() => ID, { description: 'The version id.' })
  id!: string;

  @Field()
  name!: string;

  @Field(() => Int)
  version!: number;

  @Field(() => JSONScalar)
  query!: Record<string, unknown>;

  @Field()
  description!: string;

  @Field(() => Int, { nullable: true })
  cache_age_seconds!: number | null;

  @Field({ description: 'Whether this version may run.' })
  is_active!: boolean;

  @Field()
  created_at!: Date;

  @Field(() => UserStub, { nullable: true })
  created_by!: UserStub | null;

  @Field()
  is_materialized!: boolean;

  @Field(() => MaterializationRecord)
  materialization!: MaterializationRecord;

  @Field()
  endpoint_is_active!: boolean;

  @Field(() => ID)
  version_id!: string;

  @Field()
  version_created_at!: Date;

  @Field(() => UserStub, { nullable: true })
  version_created_by!: UserStub | null;
}

/** PostHog's endpoint list is not paginated. */
@ObjectType('EndpointList')
export class EndpointList {
  @Field(() => [EndpointRecord])
  results!: EndpointRecord[];
}
