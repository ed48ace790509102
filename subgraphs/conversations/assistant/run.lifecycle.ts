import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Conversation, ConversationStatus, type AgentMode } from '../conversations/conversation.entity.js';
import { appendMessages, type StoredMessage } from '../conversations/message.repository.js';
import { QueueItem } from '../queue/queue-item.entity.js';
import { beginRun, type RunPlan } from './run.start.js';

/**
 * How a run ended, as its last status event says (`detail`): on its own, with a provider failure,
 * canceled, found dead by another process (`interrupted`), or stopped with its process (`shutdown`).
 */
export type RunEnding = 'finished' | 'generation_error' | 'canceled' | 'interrupted' | 'shutdown';

/**
 * Ends a run in one transaction: its last messages are stored, and the conversation goes back to
 * idle, or, when a message waits in the queue, on to a run answering it (returned, to start after
 * the commit). A process shutting down starts nothing: the next one's worker runs the queue. Nothing happens when the run is no longer
 * the conversation's current one (another process ended it as stale).
 */
export async function endRun(
  em: EntityManager,
  ended: { conversationId: string; runId: string; ending: RunEnding },
  messages: StoredMessage[],
): Promise<{ ended: boolean; next: RunPlan | null }> {
  return em.fork().transactional(async (tx) => {
    const conversation = await tx.findOne(Conversation, { id: ended.conversationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!conversation || conversation.run_id !== ended.runId || conversation.status === ConversationStatus.idle) return { ended: false, next: null };
    await appendMessages(tx, conversation.id, messages);
    const next = ended.ending === 'shutdown' ? null : await runQueued(tx, conversation);
    if (next) return { ended: true, next };
    Object.assign(conversation, { status: ConversationStatus.idle, run_heartbeat_at: null, updated_at: new Date() });
    await tx.flush();
    return { ended: true, next: null };
  });
}

/** On a locked conversation: a run answering the first queued message (taken off the queue), or null when none waits. */
export async function runQueued(tx: EntityManager, conversation: Conversation): Promise<RunPlan | null> {
  const queued = await tx.findOne(QueueItem, { conversation_id: conversation.id }, { orderBy: { created_at: 'asc', id: 'asc' } });
  if (!queued) return null;
  tx.remove(queued);
  return beginRun(tx, conversation, { ...queued, agent_mode: queued.agent_mode as AgentMode | null });
}

/** Idle conversations with queued messages (left by a process that stopped): the worker starts them. */
export async function idleWithQueue(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select c.id from conversations.conversations c
      where c.status = ? and exists (select 1 from conversations.queue_items q where q.conversation_id = c.id) limit ?`,
    [ConversationStatus.idle, limit],
  );
  return rows.map((row) => row.id);
}

/** Keeps a run alive in the database; answers the conversation's status (canceling asks the run to stop), null when the run is no longer current. */
export async function heartbeat(em: EntityManager, conversationId: string, runId: string): Promise<ConversationStatus | null> {
  const rows = await em.execute<{ status: ConversationStatus }[]>(
    'update conversations.conversations set run_heartbeat_at = now() where id = ? and run_id = ? and status <> ? returning status',
    [conversationId, runId, ConversationStatus.idle],
  );
  return rows[0]?.status ?? null;
}

/** Runs whose heartbeat stopped this long ago are taken as dead (their process crashed or was killed). */
export const STALE_AFTER_SECONDS = 30;

/** Conversations whose run has gone silent. */
export async function staleRuns(em: EntityManager, limit: number): Promise<{ id: string; run_id: string }[]> {
  return em.execute(
    `select id, run_id from conversations.conversations
      where status <> ? and run_heartbeat_at < now() - make_interval(secs => ?) order by run_heartbeat_at limit ?`,
    [ConversationStatus.idle, STALE_AFTER_SECONDS, limit],
  );
}
