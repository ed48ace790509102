import { ArgsType, Field, ID } from 'type-graphql';
import { EnvironmentArgs, EnvironmentPageArgs } from '../../shared/subgraph/environment.args.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

@ArgsType()
export class ListConversationsArgs extends EnvironmentPageArgs {}

/** One conversation of an environment: `:conversation` in the REST path. */
@ArgsType()
export class ConversationArgs extends EnvironmentArgs {
  @Field(() => ID)
  conversation!: string;
}

/** POST …/conversations/: PostHog's request fields. */
@ArgsType()
export class StartConversationArgs extends EnvironmentArgs {
  @Field(() => String, { nullable: true, description: 'The message (at most 40,000 characters). Without it, re-attaches to the run in progress.' })
  content?: string | null;

  @Field(() => ID, { nullable: true, description: 'The conversation (a UUID the client makes); a new one when absent.' })
  conversation?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'Context for tools, by tool name (an object).' })
  contextual_tools?: unknown;

  @Field(() => JSONScalar, { nullable: true })
  ui_context?: unknown;

  @Field(() => JSONScalar, { nullable: true })
  billing_context?: unknown;

  @Field(() => String, { nullable: true, description: "The client's trace of this exchange (a UUID)." })
  trace_id?: string | null;

  @Field(() => String, { nullable: true })
  session_id?: string | null;

  @Field(() => String, { nullable: true, description: '`product_analytics`, `sql`, `session_replay` or `error_tracking`.' })
  agent_mode?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'An answer to an interruption; accepted and echoed (no tool here asks for approval).' })
  resume_payload?: unknown;
}

@ArgsType()
export class AppendMessageArgs extends ConversationArgs {
  @Field(() => String, { nullable: true, description: 'The message (at most 10,000 characters).' })
  content?: string | null;
}
