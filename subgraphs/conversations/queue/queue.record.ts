import { Field, ID, Int, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../shared/scalars.js';

@ObjectType('ConversationQueueMessage')
export class QueueMessageRecord {
  @Field(() => ID)
  id!: string;

  @Field()
  content!: string;

  @Field()
  created_at!: Date;

  @Field(() => JSONScalar, { nullable: true })
  contextual_tools!: unknown;

  @Field(() => JSONScalar, { nullable: true })
  ui_context!: unknown;

  @Field(() => JSONScalar, { nullable: true })
  billing_context!: unknown;

  @Field(() => String, { nullable: true })
  agent_mode!: string | null;

  @Field(() => String, { nullable: true })
  session_id!: string | null;
}

/** Every queue operation answers the whole queue, as PostHog's does. */
@ObjectType('ConversationQueue')
export class QueueRecord {
  @Field(() => [QueueMessageRecord], { description: 'Waiting messages, in the order they will run.' })
  messages!: QueueMessageRecord[];

  @Field(() => Int, { description: 'How many messages may wait at once (2).' })
  max_queue_messages!: number;
}
