import type { Conversation } from './conversation.entity.js';
import type { ConversationRecord } from './conversation.record.js';

export function conversationRecord(conversation: Conversation): ConversationRecord {
  return {
    id: conversation.id,
    status: conversation.status,
    title: conversation.title,
    user: { id: conversation.user_id },
    created_at: conversation.created_at,
    updated_at: conversation.updated_at,
    type: conversation.type,
    is_internal: conversation.is_internal,
    slack_thread_key: conversation.slack_thread_key,
    slack_workspace_domain: conversation.slack_workspace_domain,
    has_unsupported_content: false,
    agent_mode: conversation.agent_mode,
    pending_approvals: [],
  };
}
