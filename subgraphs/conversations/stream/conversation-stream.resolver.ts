import { Args, ArgsType, Authorized, Field, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { ConversationStreamEventRecord, toStreamRecord, type StreamEvent } from './conversation-stream.event.js';
import { ConversationStreamService } from './conversation-stream.service.js';

@ArgsType()
export class ConversationStreamArgs {
  @Field(() => ID)
  conversation!: string;

  @Field(() => ID, { nullable: true, description: 'Only this run, from its first event, ending after its last (what POST …/conversations/ streams).' })
  run?: string | null;
}

@Resolver()
export class ConversationStreamResolver {
  @Authorized('conversation:read')
  @Subscription(() => ConversationStreamEventRecord, {
    description:
      "A conversation's runs as they go: chunks of the answer, tool calls, whole messages and status changes. Joining during a run first replays what it already produced. Ends with an `events_lost` error when events may have been missed (the pub/sub was away): read the current state again and subscribe again.",
    subscribe: ({ args, context }) => {
      const ctx = context as SubgraphContext;
      const { conversation, run } = args as ConversationStreamArgs;
      return new ConversationStreamService(ctx.em, ctx.pubsub).follow(ctx.actor, conversation, run);
    },
  })
  conversation_stream(@Root() event: StreamEvent, @Args() _args: ConversationStreamArgs): ConversationStreamEventRecord {
    return toStreamRecord(event);
  }
}
