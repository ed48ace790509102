import { Field, ID, Int, ObjectType } from 'type-graphql';

/** An organization as a user's own account lists it (PostHog's basic organization form). */
@ObjectType('UserOrganization')
export class UserOrganizationRecord {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => Int, { description: "The user's level: 1 member, 8 admin, 15 owner." })
  membership_level!: number;
}
