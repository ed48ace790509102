import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { ConversationStatus } from '../conversations/conversation.entity.js';

/** What happened in a conversation's run; PostHog's SSE event names, with chunks of messages apart. */
export enum StreamEventKind {
  /** A conversation was created by this run (first event); `data` is its brief form. */
  conversation = 'conversation',
  /** The status moved; `detail` says why (`ack`, `finished`, `canceled`, `generation_error`, `interrupted`). */
  status = 'status',
  /** A whole message (the user's, an answer with its tool calls, a tool's result); `data` is the message. */
  message = 'message',
  /** A piece of the answer being written: `delta` added to message `message_id`. */
  message_chunk = 'message_chunk',
  /** A tool call began: `data` is `{id, tool_call_id, content}`. */
  update = 'update',
}

registerEnumType(StreamEventKind, { name: 'ConversationStreamKind', description: 'What a conversation stream event carries.' });

/** The plain event as it is logged and published (JSON). */
export interface StreamEvent {
  sequence: number;
  conversation: string;
  run_id: string;
  kind: StreamEventKind;
  status?: ConversationStatus | null;
  detail?: string | null;
  message_id?: string | null;
  delta?: string | null;
  data?: unknown;
}

/** One event of a conversation's stream, as subscribers receive it. */
@ObjectType('ConversationStreamEvent')
export class ConversationStreamEventRecord {
  @Field(() => Int, { description: 'Increases by one per event of the conversation: replayed and live events together have no gap and no repeat.' })
  sequence!: number;

  @Field(() => ID)
  conversation!: string;

  @Field(() => ID, { description: 'The run that produced it (one per message the assistant answers).' })
  run_id!: string;

  @Field(() => StreamEventKind)
  kind!: StreamEventKind;

  @Field(() => ConversationStatus, {
    nullable: true,
    description: "The conversation's status after a `status` event: in_progress with `ack` as a run begins; with any other `detail` the run has ended (idle, or in_progress when a queued message runs next).",
  })
  status!: ConversationStatus | null;

  @Field(() => String, { nullable: true })
  detail!: string | null;

  @Field(() => ID, { nullable: true })
  message_id!: string | null;

  @Field(() => String, { nullable: true, description: 'Text added to the answer `message_id` (message_chunk).' })
  delta!: string | null;

  @Field(() => JSONScalar, { nullable: true })
  data!: unknown;
}

export function toStreamRecord(event: StreamEvent): ConversationStreamEventRecord {
  return {
    sequence: event.sequence,
    conversation: event.conversation,
    run_id: event.run_id,
    kind: event.kind,
    status: event.status ?? null,
    detail: event.detail ?? null,
    message_id: event.message_id ?? null,
    delta: event.delta ?? null,
    data: event.data ?? null,
  };
}

/** A run's last event: a status that says how it ended (the first, `ack`, says it began). */
export function endsRun(event: StreamEvent): boolean {
  return event.kind === StreamEventKind.status && event.detail !== 'ack';
}
