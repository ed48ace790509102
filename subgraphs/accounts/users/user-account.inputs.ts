import { ArgsType, Field } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

@ArgsType()
export class UserArgs {
  @Field({ description: 'The user\'s uuid, or `@me` for the caller.' })
  uuid!: string;
}

/** The API document's "User account fields"; every one optional, as PATCH sends only what changes. */
@ArgsType()
export class UpdateUserArgs extends UserArgs {
  @Field({ nullable: true, description: 'At most 150 characters.' })
  first_name?: string;

  @Field({ nullable: true, description: 'At most 150 characters.' })
  last_name?: string;

  @Field({ nullable: true, description: 'A new address is kept as `pending_email` and verified by mail before it is used.' })
  email?: string;

  @Field(() => JSONScalar, { nullable: true, description: 'Some notification preferences; the others keep their values.' })
  notification_settings?: unknown;

  @Field({ nullable: true })
  anonymize_data?: boolean;

  @Field({ nullable: true, description: 'Only staff may change it.' })
  is_staff?: boolean;

  @Field({ nullable: true, description: 'The id of an organization the user belongs to.' })
  set_current_organization?: string;

  @Field({ nullable: true, description: 'The id of an environment (team) the user can reach.' })
  set_current_team?: string;

  @Field({ nullable: true, description: 'The new password (at least 8 characters); needs `current_password`.' })
  password?: string;

  @Field({ nullable: true })
  current_password?: string;

  @Field(() => JSONScalar, { nullable: true, description: '`disabled` or `toolbar`.' })
  toolbar_mode?: unknown;

  @Field(() => JSONScalar, { nullable: true })
  events_column_config?: unknown;

  @Field(() => JSONScalar, { nullable: true })
  has_seen_product_intro_for?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: '`light`, `dark`, `system` or null.' })
  theme_mode?: unknown;

  @Field(() => JSONScalar, { nullable: true })
  hedgehog_config?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'engineering, data, product, founder, leadership, marketing, sales, other, or null.' })
  role_at_organization?: unknown;
}
