import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('ActorOrganization')
@Directive('@inaccessible')
export class ActorOrganizationType {
  @Field(() => ID)
  id!: string;

  @Field(() => Int)
  level!: number;
}

/** A user's organizations with their levels. Internal: for the router. */
@ObjectType('ActorMemberships')
@Directive('@inaccessible')
export class ActorMembershipsType {
  @Field(() => [ActorOrganizationType])
  organizations!: ActorOrganizationType[];
}
