import { Authorized, Field, ID, Int, ObjectType } from 'type-graphql';
import { GroupTypeRecord } from './group-types/group-type.record.js';
import { ProductIntentRecord } from './intents/product-intent.record.js';

/**
 * What project and environment records share (PostHog's team): identity, tokens, intents and the
 * caller's level. Every field needs `project:read`. Not a GraphQL type of its own.
 */
@ObjectType()
export abstract class TeamRecord {
  @Authorized('project:read')
  @Field()
  uuid!: string;

  @Authorized('project:read')
  @Field(() => ID, { description: 'The organization id.' })
  organization!: string;

  @Authorized('project:read')
  @Field({ description: 'The project API token (`phc_`), used by SDKs and /batch/.' })
  api_token!: string;

  @Authorized('project:read')
  @Field(() => String, { nullable: true, description: 'The secret token (`phs_`) for server-side feature flag evaluation.' })
  secret_api_token!: string | null;

  @Authorized('project:read')
  @Field(() => String, { nullable: true, description: 'The previous secret token, valid until deleted.' })
  secret_api_token_backup!: string | null;

  @Authorized('project:read')
  @Field(() => [ProductIntentRecord], { description: 'Products its users said they want, and onboarding completed.' })
  product_intents!: ProductIntentRecord[];

  @Authorized('project:read')
  @Field(() => Int, { nullable: true, description: "The caller's level: 1 member, 8 admin, 15 owner." })
  effective_membership_level!: number | null;

  @Authorized('project:read')
  @Field(() => String, { description: "The caller's access to the project: `admin` for organization admins and owners, else `member`." })
  user_access_level!: string;

  @Authorized('project:read')
  @Field({ description: 'Whether any event has been ingested yet.' })
  ingested_event!: boolean;

  @Authorized('project:read')
  @Field({ description: 'Whether the project has group types yet (they come with the first `$groupidentify` of a type).' })
  has_group_types!: boolean;

  @Authorized('project:read')
  @Field(() => [GroupTypeRecord])
  group_types!: GroupTypeRecord[];

  @Authorized('project:read')
  @Field(() => String, { nullable: true, description: "A token for PostHog's live-events stream; null: this platform runs no such stream." })
  live_events_token!: string | null;

  @Authorized('project:read')
  @Field()
  created_at!: Date;

  @Authorized('project:read')
  @Field()
  updated_at!: Date;

  [setting: string]: unknown;
}
