import { Field, ID, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { ConversationStatus, ConversationType } from './conversation.entity.js';
import { UserStub } from './user.stub.js';

/** A conversation as the API shows it (PostHog's record); `messages` are read when asked for. */
@ObjectType('Conversation')
export class ConversationRecord {
  @Field(() => ID)
  id!: string;

  @Field(() => ConversationStatus)
  status!: ConversationStatus;

  @Field(() => String, { nullable: true, description: 'Taken from the first message, then written by the assistant after its first answer.' })
  title!: string | null;

  @Field(() => UserStub, { description: 'The owner: only they may read or continue the conversation.' })
  user!: UserStub;

  @Field()
  created_at!: Date;

  @Field()
  updated_at!: Date;

  @Field(() => ConversationType)
  type!: ConversationType;

  @Field()
  is_internal!: boolean;

  @Field(() => String, { nullable: true })
  slack_thread_key!: string | null;

  @Field(() => String, { nullable: true })
  slack_workspace_domain!: string | null;

  @Field(() => Boolean, { description: 'Always false: every stored message can be shown.' })
  has_unsupported_content!: boolean;

  @Field(() => String, { nullable: true, description: '`product_analytics`, `sql`, `session_replay` or `error_tracking`; null for the default.' })
  agent_mode!: string | null;

  @Field(() => [JSONScalar], { description: 'Tool calls waiting for the user to approve them (none: every tool here only reads).' })
  pending_approvals!: unknown[];
}

/** A message a client stored without running the assistant. */
@ObjectType('AppendedConversationMessage')
export class AppendedMessageRecord {
  @Field(() => ID)
  id!: string;

  @Field()
  content!: string;
}

/** What a client sends along with a message, as records show it (the start's echo, a queued message). */
@ObjectType()
export abstract class MessageContextRecord {
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

/**
 * The answer to POST …/conversations/ without streaming: the request's fields as they were taken,
 * with the conversation's id (given or new) and the run that answers it.
 */
@ObjectType('ConversationStart')
export class ConversationStartRecord extends MessageContextRecord {
  @Field(() => String, { nullable: true })
  content!: string | null;

  @Field(() => ID)
  conversation!: string;

  @Field(() => String, { nullable: true })
  trace_id!: string | null;

  @Field(() => JSONScalar, { nullable: true })
  resume_payload!: unknown;

  @Field(() => ID, { description: 'The run now answering; `conversation_stream(conversation, run)` follows it from its start.' })
  run_id!: string;

  @Field(() => ConversationStatus)
  status!: ConversationStatus;
}
