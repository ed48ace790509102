import DataLoader from 'dataloader';
import { Args, Authorized, Ctx, FieldResolver, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { Paginated } from '../../shared/subgraph/pagination.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { AppendMessageArgs, ConversationArgs, ListConversationsArgs, StartConversationArgs } from './conversation.inputs.js';
import { AppendedMessageRecord, ConversationRecord, ConversationStartRecord } from './conversation.record.js';
import { ConversationService } from './conversation.service.js';
import { loadMessages, type StoredMessage } from './message.repository.js';

@ObjectType('ConversationList')
export class ConversationList extends Paginated(ConversationRecord) {}

const service = ({ em, pubsub, log }: SubgraphContext) => new ConversationService(em, pubsub, log);

/** One query for the messages of every conversation a request shows. */
const messageLoaders = new WeakMap<SubgraphContext, DataLoader<string, StoredMessage[]>>();
function messagesOf(ctx: SubgraphContext, id: string): Promise<StoredMessage[]> {
  let loader = messageLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (ids: readonly string[]) => {
      const found = await loadMessages(ctx.em, ids);
      return ids.map((conversationId) => found.get(conversationId) ?? []);
    });
    messageLoaders.set(ctx, loader);
  }
  return loader.load(id);
}

@Resolver(() => ConversationRecord)
export class ConversationResolver {
  @Authorized('conversation:read')
  @Query(() => ConversationList, { description: "The caller's conversations with the assistant, most recently active first." })
  conversations(@Args() args: ListConversationsArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).list(ctx.actor, args);
  }

  @Authorized('conversation:read')
  @Query(() => ConversationRecord, { description: 'One of the caller\'s conversations, with its messages.' })
  conversation(@Args() { project_id, conversation }: ConversationArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, project_id, conversation);
  }

  @Authorized('conversation:write')
  @Mutation(() => ConversationStartRecord, {
    description: 'Sends a message (a new conversation, or the next message of an idle one) and starts the assistant; without `content`, names the run in progress to re-attach to.',
  })
  create_conversation(@Args() args: StartConversationArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).start(ctx.actor, args);
  }

  @Authorized('conversation:write')
  @Mutation(() => AppendedMessageRecord, { description: 'Stores a message made by the client, without running the assistant.' })
  append_conversation_message(@Args() args: AppendMessageArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).append(ctx.actor, args);
  }

  @Authorized('conversation:write')
  @Mutation(() => ConversationRecord, { description: 'Stops the run in progress: the status turns canceling, then idle once the run has stopped.' })
  cancel_conversation(@Args() { project_id, conversation }: ConversationArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).cancel(ctx.actor, project_id, conversation);
  }

  @FieldResolver(() => [JSONScalar], { description: 'Every message, oldest first: `human`, `ai` (with `tool_calls`), `tool` and `ai/failure`.' })
  messages(@Root() conversation: ConversationRecord, @Ctx() ctx: SubgraphContext) {
    return messagesOf(ctx, conversation.id);
  }
}
