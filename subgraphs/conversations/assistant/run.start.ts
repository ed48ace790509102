import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { ConversationStatus, type AgentMode, type Conversation } from '../conversations/conversation.entity.js';
import { appendMessages, type StoredMessage } from '../conversations/message.repository.js';

/** What a run needs from the platform: a database session of its own, the pub/sub, a logger. */
export interface RunContext {
  em: EntityManager;
  pubsub: PubSub;
  log: Logger;
}

/** A run as its transaction decided it: which conversation, which message it answers, with which scopes. */
export interface RunPlan {
  conversationId: string;
  environmentId: number;
  runId: string;
  scopes: string[];
  agentMode: AgentMode | null;
  /** The conversation is new: subscribers get its brief form first, and the assistant names it. */
  created: boolean;
  brief: Record<string, unknown>;
  human: StoredMessage;
}

/** The user's message that starts a run, with what the client sent along with it. */
export interface RunInput {
  content: string;
  scopes: string[];
  ui_context?: unknown;
  contextual_tools?: unknown;
  trace_id?: string | null;
  session_id?: string | null;
  agent_mode?: AgentMode | null;
}

/**
 * On a conversation locked in the caller's transaction: stores the user's message and makes a new
 * run current (in_progress, with a fresh heartbeat). The run itself starts after the commit.
 */
export async function beginRun(tx: EntityManager, conversation: Conversation, input: RunInput, created = false): Promise<RunPlan> {
  // A new conversation is written first: its messages refer to it.
  await tx.flush();
  const human: StoredMessage = { type: 'human', id: randomUUID(), content: input.content };
  for (const field of ['ui_context', 'contextual_tools', 'trace_id', 'session_id'] as const) if (input[field] != null) human[field] = input[field];
  await appendMessages(tx, conversation.id, [human]);
  const now = new Date();
  Object.assign(conversation, {
    status: ConversationStatus.in_progress,
    run_id: randomUUID(),
    run_heartbeat_at: now,
    run_scopes: input.scopes,
    updated_at: now,
    agent_mode: input.agent_mode ?? conversation.agent_mode,
  });
  await tx.flush();
  return {
    conversationId: conversation.id,
    environmentId: conversation.environment_id,
    runId: conversation.run_id!,
    scopes: input.scopes,
    agentMode: conversation.agent_mode,
    created,
    brief: { id: conversation.id, status: conversation.status, title: conversation.title, type: conversation.type, created_at: conversation.created_at, updated_at: now },
    human,
  };
}
