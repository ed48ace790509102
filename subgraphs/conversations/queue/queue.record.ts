import { Field, ID, Int, ObjectType } from 'type-graphql';
import { MessageContextRecord } from '../conversations/conversation.record.js';

@ObjectType('ConversationQueueMessage')
export class QueueMessageRecord extends MessageContextRecord {
  @Field(() => ID)
  id!: string;

  @Field()
  content!: string;

  @Field()
  created_at!: Date;
}

/** Every queue operation answers the whole queue, as PostHog's does. */
@ObjectType('ConversationQueue')
export class QueueRecord {
  @Field(() => [QueueMessageRecord], { description: 'Waiting messages, in the order they will run.' })
  messages!: QueueMessageRecord[];

  @Field(() => Int, { description: 'How many messages may wait at once (2).' })
  max_queue_messages!: number;
}
