import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

/**
 * A user's own account, as `GET /api/users/@me/` answers it (PostHog's full user serializer). The
 * projects subgraph adds `organization`, `team` and `organizations` from the two current ids.
 */
@ObjectType('UserAccount', { description: "A user's own account: profile, preferences and security state." })
@Directive('@key(fields: "id")')
export class UserAccountRecord {
  @Field(() => Int)
  id!: number;

  @Field()
  uuid!: string;

  @Field({ description: 'The identifier this user has in captured events.' })
  distinct_id!: string;

  @Field()
  first_name!: string;

  @Field()
  last_name!: string;

  @Field({ description: 'The address in use; a changed one waits in `pending_email` until verified.' })
  email!: string;

  @Field(() => String, { nullable: true, description: 'A new address waiting for verification.' })
  pending_email!: string | null;

  @Field()
  is_email_verified!: boolean;

  @Field({ description: 'Whether the user may address other accounts (staff only can set it).' })
  is_staff!: boolean;

  @Field({ description: 'Whether two-factor authentication is on.' })
  is_2fa_enabled!: boolean;

  @Field()
  has_password!: boolean;

  @Field()
  anonymize_data!: boolean;

  @Field(() => JSONScalar, { description: 'Notification preferences: the defaults with the user\'s own choices over them.' })
  notification_settings!: Record<string, unknown>;

  @Field({ description: '`disabled` or `toolbar`.' })
  toolbar_mode!: string;

  @Field(() => String, { nullable: true, description: '`light`, `dark`, `system` or null.' })
  theme_mode!: string | null;

  @Field(() => JSONScalar, { nullable: true })
  events_column_config!: unknown;

  @Field(() => JSONScalar, { nullable: true })
  has_seen_product_intro_for!: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'Free-form settings of the hedgehog mascot.' })
  hedgehog_config!: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: 'engineering, data, product, founder, leadership, marketing, sales or other.' })
  role_at_organization!: string | null;

  @Field({ description: 'When the account was created.' })
  date_joined!: Date;

  // For the projects subgraph, which resolves them to records; not part of the public API.
  @Directive('@inaccessible')
  @Field(() => String, { nullable: true })
  current_organization_id!: string | null;

  @Directive('@inaccessible')
  @Field(() => Int, { nullable: true })
  current_team_id!: number | null;
}
