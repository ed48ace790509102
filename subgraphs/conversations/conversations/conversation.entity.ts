import { Entity, Enum, Index, Property } from '@mikro-orm/core';
import { registerEnumType } from 'type-graphql';
import { EnvironmentEntity } from '../../shared/db/base.entity.js';

/** PostHog's conversation states: a run moves idle → in_progress → idle, through canceling when stopped. */
export enum ConversationStatus {
  idle = 'idle',
  in_progress = 'in_progress',
  canceling = 'canceling',
}

export enum ConversationType {
  assistant = 'assistant',
  tool_call = 'tool_call',
  deep_research = 'deep_research',
  slack = 'slack',
}

registerEnumType(ConversationStatus, { name: 'ConversationStatus', description: 'idle, in_progress (the assistant is answering) or canceling.' });
registerEnumType(ConversationType, { name: 'ConversationType', description: "PostHog's conversation types; the API makes `assistant` ones." });

/** The modes PostHog's assistant works in (the request's `agent_mode`). */
export const AGENT_MODES = ['product_analytics', 'sql', 'session_replay', 'error_tracking'] as const;
export type AgentMode = (typeof AGENT_MODES)[number];

/**
 * A conversation with the assistant, owned by the user who started it. The run fields say which
 * run is current (or was last), since when it is alive (a heartbeat, so that a run whose process
 * died is ended by another), and with which scopes its tools read the environment's data.
 */
@Entity({ tableName: 'conversations' })
@Index({ properties: ['environment_id', 'user_id', 'updated_at'] })
@Index({ properties: ['status', 'run_heartbeat_at'] })
export class Conversation extends EnvironmentEntity {
  @Property({ type: 'integer' })
  project_id!: number;

  /** The accounts subgraph's user id of the owner: only they may read or continue it. */
  @Property({ type: 'integer' })
  user_id!: number;

  @Enum({ items: () => ConversationStatus })
  status: ConversationStatus = ConversationStatus.idle;

  @Property({ type: 'text', nullable: true })
  title: string | null = null;

  @Enum({ items: () => ConversationType })
  type: ConversationType = ConversationType.assistant;

  @Property({ type: 'boolean' })
  is_internal: boolean = false;

  @Property({ type: 'text', nullable: true })
  slack_thread_key: string | null = null;

  @Property({ type: 'text', nullable: true })
  slack_workspace_domain: string | null = null;

  @Property({ type: 'text', nullable: true })
  agent_mode: AgentMode | null = null;

  /** The current run while one goes on, else the last one. */
  @Property({ type: 'uuid', nullable: true })
  run_id: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  run_heartbeat_at: Date | null = null;

  /** The scopes of the key that started the current run: its tools read only what they allow. */
  @Property({ type: 'jsonb' })
  run_scopes: string[] = [];

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz' })
  updated_at: Date = new Date();
}
