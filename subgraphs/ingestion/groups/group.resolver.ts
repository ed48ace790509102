import { Args, Authorized, Ctx, ObjectType, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { Paginated } from '../../shared/subgraph/pagination.js';
import { GroupArgs, ListGroupsArgs } from './group.inputs.js';
import { GroupRecord } from './group.record.js';
import { GroupService } from './group.service.js';

@ObjectType('GroupList')
export class GroupList extends Paginated(GroupRecord) {}

const service = ({ em }: SubgraphContext) => new GroupService(em);

@Resolver(() => GroupRecord)
export class GroupResolver {
  @Authorized('group:read')
  @Query(() => GroupList, { description: "An environment's groups of one type, newest first." })
  groups(@Args() args: ListGroupsArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).list(ctx.actor, args);
  }

  @Authorized('group:read')
  @Query(() => GroupRecord, { description: "One group, by type index and key (PostHog's `groups/find`)." })
  group(@Args() args: GroupArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, args);
  }
}
