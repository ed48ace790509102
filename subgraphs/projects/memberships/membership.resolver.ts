import { Args, ArgsType, Authorized, Ctx, Directive, Field, Int, Query, Resolver } from 'type-graphql';
import { INTERNAL } from '../../shared/auth/scopes.js';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { ActorMembershipsType } from './actor-memberships.type.js';
import { MembershipService } from './membership.service.js';

@ArgsType()
class ActorMembershipsArgs {
  @Field(() => Int)
  user_id!: number;
}

@Resolver()
export class MembershipResolver {
  @Authorized(INTERNAL)
  @Directive('@inaccessible')
  @Query(() => ActorMembershipsType, { description: "Internal: a user's organizations and membership levels." })
  _actor_memberships(@Args() { user_id }: ActorMembershipsArgs, @Ctx() { em }: SubgraphContext): Promise<ActorMembershipsType> {
    return new MembershipService(em).forUser(user_id);
  }
}
