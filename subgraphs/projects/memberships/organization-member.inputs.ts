import { ArgsType, Field, ID, Int } from 'type-graphql';
import { PageArgs } from '../../shared/subgraph/pagination.js';

@ArgsType()
export class ListOrganizationMembersArgs extends PageArgs {
  @Field(() => ID)
  organization_id!: string;
}

@ArgsType()
export class OrganizationMemberArgs {
  @Field(() => ID)
  organization_id!: string;

  @Field({ description: "The member's user uuid." })
  user_uuid!: string;
}

@ArgsType()
export class UpdateOrganizationMemberArgs extends OrganizationMemberArgs {
  @Field(() => Int, { description: 'The new level: 1 member, 8 admin, 15 owner.' })
  level!: number;
}
