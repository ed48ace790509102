import { Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { SafeIntScalar } from '../../shared/subgraph/scalars.js';
import { EventArgs, EventFilterArgs, ListEventsArgs } from './event.inputs.js';
import { EventList, EventRecord } from './event.record.js';
import { EventService } from './event.service.js';

const service = ({ em }: SubgraphContext) => new EventService(em);

@Resolver(() => EventRecord)
export class EventResolver {
  @Authorized('query:read')
  @Query(() => EventList, { description: "An environment's events, newest first, by name, distinct id and time." })
  events(@Args() args: ListEventsArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).list(ctx.actor, args);
  }

  @Authorized('query:read')
  @Query(() => EventRecord, { description: 'One event, by its uuid.' })
  event(@Args() { project_id, id }: EventArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, project_id, id);
  }

  @Authorized('query:read')
  @Query(() => SafeIntScalar, { description: 'How many events match (the same filters as `events`).' })
  event_count(@Args() args: EventFilterArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).count(ctx.actor, args);
  }
}
