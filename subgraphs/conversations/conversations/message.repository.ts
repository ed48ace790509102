import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A message as PostHog's assistant stores it: `type` (`human`, `ai`, `tool`, `ai/failure`), `id`,
 * `content`, and per type `tool_calls` ({id, name, args}), `tool_call_id`, `ui_context`.
 */
export interface StoredMessage {
  type: 'human' | 'ai' | 'tool' | 'ai/failure';
  id: string;
  content: string;
  tool_calls?: { id: string; name: string; args: unknown }[];
  tool_call_id?: string;
  [field: string]: unknown;
}

/**
 * Messages live in `conversations.messages`, an append-only table made by the migration (no entity:
 * `position` is a bigserial, so messages appended at once by a run and a client keep one order).
 */
export async function appendMessages(em: EntityManager, conversationId: string, messages: StoredMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await em.execute(
    `insert into conversations.messages (conversation_id, id, message)
     select ?, (m.message->>'id')::uuid, m.message
       from jsonb_array_elements(?::jsonb) with ordinality as m(message, ordinality)
      order by m.ordinality`,
    [conversationId, JSON.stringify(messages)],
    'run',
  );
}

/** Every message of the conversations, in order, by conversation. */
export async function loadMessages(em: EntityManager, conversationIds: readonly string[]): Promise<Map<string, StoredMessage[]>> {
  const found = new Map<string, StoredMessage[]>(conversationIds.map((id) => [id, []]));
  if (conversationIds.length === 0) return found;
  const rows = await em.execute<{ conversation_id: string; message: StoredMessage }[]>(
      'select conversation_id, message from conversations.messages where conversation_id in (?) order by conversation_id, position',
      [[...new Set(conversationIds)]],
    );
  for (const row of rows) found.get(row.conversation_id)?.push(row.message);
  return found;
}

/** The last `limit` messages of one conversation, oldest first: what the model reads back. */
export async function recentMessages(em: EntityManager, conversationId: string, limit: number): Promise<StoredMessage[]> {
  const rows = await em.execute<{ message: StoredMessage }[]>(
      'select message from (select message, position from conversations.messages where conversation_id = ? order by position desc limit ?) m order by position',
      [conversationId, limit],
    );
  return rows.map((row) => row.message);
}
