import { ArgsType, Field, ID } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { ConversationArgs } from '../conversations/conversation.inputs.js';

@ArgsType()
export class EnqueueMessageArgs extends ConversationArgs {
  @Field(() => String, { nullable: true, description: 'The message (at most 40,000 characters).' })
  content?: string | null;

  @Field(() => JSONScalar, { nullable: true })
  contextual_tools?: unknown;

  @Field(() => JSONScalar, { nullable: true })
  ui_context?: unknown;

  @Field(() => JSONScalar, { nullable: true })
  billing_context?: unknown;

  @Field(() => String, { nullable: true })
  agent_mode?: string | null;

  @Field(() => String, { nullable: true })
  session_id?: string | null;
}

@ArgsType()
export class QueueMessageArgs extends ConversationArgs {
  @Field(() => ID)
  queue_id!: string;
}

@ArgsType()
export class UpdateQueueMessageArgs extends QueueMessageArgs {
  @Field(() => String, { nullable: true })
  content?: string | null;
}
