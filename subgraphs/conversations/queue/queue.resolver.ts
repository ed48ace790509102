import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { ConversationArgs } from '../conversations/conversation.inputs.js';
import { EnqueueMessageArgs, QueueMessageArgs, UpdateQueueMessageArgs } from './queue.inputs.js';
import { QueueRecord } from './queue.record.js';
import { QueueService } from './queue.service.js';

const service = ({ em, pubsub, log }: SubgraphContext) => new QueueService(em, pubsub, log);

@Resolver(() => QueueRecord)
export class QueueResolver {
  @Authorized('conversation:read')
  @Query(() => QueueRecord, { description: 'Messages waiting for the run in progress to end.' })
  conversation_queue(@Args() { project_id, conversation }: ConversationArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, project_id, conversation);
  }

  @Authorized('conversation:write')
  @Mutation(() => QueueRecord, { description: 'Queues a message (at most two wait); on an idle conversation it runs at once.' })
  enqueue_conversation_message(@Args() args: EnqueueMessageArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).enqueue(ctx.actor, args);
  }

  @Authorized('conversation:write')
  @Mutation(() => QueueRecord, { description: "Replaces a queued message's content." })
  update_conversation_queue_message(@Args() args: UpdateQueueMessageArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).update(ctx.actor, args);
  }

  @Authorized('conversation:write')
  @Mutation(() => QueueRecord, { description: 'Removes a queued message.' })
  delete_conversation_queue_message(@Args() args: QueueMessageArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).delete(ctx.actor, args);
  }

  @Authorized('conversation:write')
  @Mutation(() => QueueRecord, { description: 'Removes every queued message.' })
  clear_conversation_queue(@Args() { project_id, conversation }: ConversationArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).clear(ctx.actor, project_id, conversation);
  }
}
