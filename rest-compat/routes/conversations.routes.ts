import { streamConversation } from '../conversations/conversation.sse.js';
import type { RestRoute } from '../route-table.js';

const base = '/environments/:project_id/conversations';
const one = `${base}/:conversation`;

/**
 * API document section 4.3. Statuses are the document's; bodies PostHog's where the document shows
 * none (the queue operations answer the queue). POST …/conversations/ with `Accept:
 * text/event-stream` is streamed by `streamConversation` instead.
 */
export const conversationRoutes: RestRoute[] = [
  { method: 'GET', path: base, field: 'Query.conversations', summary: 'List conversations' },
  {
    method: 'POST',
    path: base,
    field: 'Mutation.create_conversation',
    status: 201,
    summary: 'Create a conversation or stream an existing one',
    eventStream: {
      handler: streamConversation,
      description:
        'PostHog\'s frames, as the run goes: `event: conversation` (a new conversation), `event: status` (`{"type": "ack"}`, `{"type": "generation_error"}`), `event: message` (each message; the answer repeated with its content so far), `event: update` (a tool call began); `: keepalive` every 15 s; the stream ends with the run.',
    },
  },
  { method: 'GET', path: one, field: 'Query.conversation', summary: 'Retrieve a conversation' },
  { method: 'POST', path: `${one}/append_message`, field: 'Mutation.append_conversation_message', summary: 'Append a message without triggering AI processing' },
  { method: 'PATCH', path: `${one}/cancel`, field: 'Mutation.cancel_conversation', summary: "Cancel the conversation's run in progress" },
  { method: 'GET', path: `${one}/queue`, field: 'Query.conversation_queue', summary: "Retrieve the conversation's message queue" },
  { method: 'POST', path: `${one}/queue`, field: 'Mutation.enqueue_conversation_message', summary: 'Queue a message' },
  { method: 'POST', path: `${one}/queue/clear`, field: 'Mutation.clear_conversation_queue', summary: 'Clear the message queue' },
  { method: 'PATCH', path: `${one}/queue/:queue_id`, field: 'Mutation.update_conversation_queue_message', summary: 'Update a queued message' },
  { method: 'DELETE', path: `${one}/queue/:queue_id`, field: 'Mutation.delete_conversation_queue_message', status: 204, summary: 'Delete a queued message' },
];

/** Fields of the GraphQL records that PostHog's REST records do not have. */
export const conversationHiddenFields = ['ConversationStart.run_id', 'ConversationStart.status'];
