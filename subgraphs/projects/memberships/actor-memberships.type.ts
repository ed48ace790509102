import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('ActorOrganization')
@Directive('@inaccessible')
export class ActorOrganizationType {
  @Field(() => ID)
  id!: string;

  @Field(() => Int)
  level!: number;
}

@ObjectType('ActorEnvironment')
@Directive('@inaccessible')
export class ActorEnvironmentType {
  @Field(() => Int)
  id!: number;

  @Field(() => Int)
  project_id!: number;

  @Field(() => ID)
  organization_id!: string;
}

/** A user's organizations and the environments reachable through them. Internal: for the router. */
@ObjectType('ActorMemberships')
@Directive('@inaccessible')
export class ActorMembershipsType {
  @Field(() => [ActorOrganizationType])
  organizations!: ActorOrganizationType[];

  @Field(() => [ActorEnvironmentType])
  environments!: ActorEnvironmentType[];
}
