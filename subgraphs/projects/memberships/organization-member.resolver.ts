import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { ListOrganizationMembersArgs, OrganizationMemberArgs, UpdateOrganizationMemberArgs } from './organization-member.inputs.js';
import { OrganizationMemberList, OrganizationMemberRecord } from './organization-member.record.js';
import { OrganizationMemberService } from './organization-member.service.js';

@Resolver(() => OrganizationMemberRecord)
export class OrganizationMemberResolver {
  @Authorized('organization:read')
  @Query(() => OrganizationMemberList, { description: "An organization's members with their levels (members of it only)." })
  organization_members(@Args() args: ListOrganizationMembersArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new OrganizationMemberService(em).list(actor, args);
  }

  @Authorized('organization:write')
  @Mutation(() => OrganizationMemberRecord, {
    description: "Changes another member's level (admins, up to their own level); an organization always keeps an owner.",
  })
  update_organization_member(@Args() args: UpdateOrganizationMemberArgs, @Ctx() { actor, em, pubsub }: SubgraphContext) {
    return new OrganizationMemberService(em, pubsub).update(actor, args);
  }

  @Authorized('organization:write')
  @Mutation(() => Boolean, {
    description: 'Removes a member (admins, up to their own level), or leaves the organization; the last owner cannot go.',
  })
  async remove_organization_member(@Args() args: OrganizationMemberArgs, @Ctx() { actor, em, pubsub }: SubgraphContext): Promise<boolean> {
    await new OrganizationMemberService(em, pubsub).remove(actor, args);
    return true;
  }
}
