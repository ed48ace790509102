import { Args, ArgsType, Authorized, Ctx, Field, ID, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { Organization } from './organization.entity.js';
import { OrganizationService } from './organization.service.js';

@ArgsType()
class OrganizationArgs {
  @Field(() => ID)
  id!: string;
}

@Resolver(() => Organization)
export class OrganizationResolver {
  @Authorized('organization:read')
  @Query(() => [Organization], { description: 'Organizations the caller is a member of.' })
  organizations(@Ctx() { actor, em }: SubgraphContext): Promise<Organization[]> {
    return new OrganizationService(em).mine(actor);
  }

  @Authorized('organization:read')
  @Query(() => Organization)
  organization(@Args() { id }: OrganizationArgs, @Ctx() { actor, em }: SubgraphContext): Promise<Organization> {
    return new OrganizationService(em).get(actor, id);
  }
}
