import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { ConflictError, NotFoundError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { isUuid } from '../../shared/validation.js';
import { llmAnalyticsFacade } from '../../llm-analytics/facade.js';
import { AssistantRun } from '../assistant/assistant.run.js';
import { beginRun, type RunPlan } from '../assistant/run.start.js';
import { ownConversation } from '../conversations/conversation.access.js';
import { Conversation, ConversationStatus } from '../conversations/conversation.entity.js';
import { agentMode, MAX_MESSAGE_LENGTH, messageContext, messageText } from '../conversations/conversation.rules.js';
import { QueueItem } from './queue-item.entity.js';
import type { EnqueueMessageArgs, QueueMessageArgs, UpdateQueueMessageArgs } from './queue.inputs.js';
import type { QueueRecord } from './queue.record.js';

/** PostHog's limit: two follow-ups may wait while the assistant answers. */
export const MAX_QUEUE_MESSAGES = 2;

/**
 * A conversation's queue of follow-ups. Each waits for the run in progress to end and then runs, in
 * order; one queued while the conversation is idle runs at once. Another user's conversation is a
 * 403, as PostHog's queue answers.
 */
export class QueueService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
    private readonly log: Logger,
  ) {}

  async get(actor: Actor, environmentId: number, conversationId: string): Promise<QueueRecord> {
    const conversation = await ownConversation(this.em, actor, environmentId, conversationId, 'forbidden');
    return this.queueOf(conversation.id);
  }

  async enqueue(actor: Actor, args: EnqueueMessageArgs): Promise<QueueRecord> {
    const item = Object.assign(new QueueItem(), { content: messageText(args.content, MAX_MESSAGE_LENGTH), ...messageContext(args), scopes: actor.scopes });
    const owned = await ownConversation(this.em, actor, args.project_id, args.conversation, 'forbidden');
    const plan = await this.em.fork().transactional(async (tx): Promise<RunPlan | null> => {
      const conversation = await tx.findOneOrFail(Conversation, { id: owned.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (conversation.status === ConversationStatus.idle) {
        await llmAnalyticsFacade.openModel(tx, conversation.environment_id);
        return beginRun(tx, conversation, { ...item, agent_mode: agentMode(item.agent_mode) });
      }
      if ((await tx.count(QueueItem, { conversation_id: conversation.id })) >= MAX_QUEUE_MESSAGES) {
        throw new ConflictError('Only two messages can be queued at a time.', 'queue_full');
      }
      tx.persist(Object.assign(item, { conversation_id: conversation.id }));
      return null;
    });
    if (plan) await AssistantRun.launch({ em: this.em.fork(), pubsub: this.pubsub, log: this.log }, plan);
    return this.queueOf(owned.id);
  }

  async update(actor: Actor, args: UpdateQueueMessageArgs): Promise<QueueRecord> {
    const content = messageText(args.content, MAX_MESSAGE_LENGTH);
    const item = await this.item(actor, args);
    item.content = content;
    await this.em.flush();
    return this.queueOf(item.conversation_id);
  }

  async delete(actor: Actor, args: QueueMessageArgs): Promise<QueueRecord> {
    const item = await this.item(actor, args);
    await this.em.removeAndFlush(item);
    return this.queueOf(item.conversation_id);
  }

  async clear(actor: Actor, environmentId: number, conversationId: string): Promise<QueueRecord> {
    const conversation = await ownConversation(this.em, actor, environmentId, conversationId, 'forbidden');
    await this.em.nativeDelete(QueueItem, { conversation_id: conversation.id });
    return this.queueOf(conversation.id);
  }

  private async item(actor: Actor, args: QueueMessageArgs): Promise<QueueItem> {
    const conversation = await ownConversation(this.em, actor, args.project_id, args.conversation, 'forbidden');
    const item = isUuid(args.queue_id) ? await this.em.findOne(QueueItem, { id: args.queue_id.toLowerCase(), conversation_id: conversation.id }) : null;
    if (!item) throw new NotFoundError('Queue message not found.');
    return item;
  }

  private async queueOf(conversationId: string): Promise<QueueRecord> {
    const items = await this.em.fork().find(QueueItem, { conversation_id: conversationId }, { orderBy: { created_at: 'asc', id: 'asc' } });
    return {
      messages: items.map(({ id, content, created_at, contextual_tools, ui_context, billing_context, agent_mode, session_id }) => ({
        id,
        content,
        created_at,
        contextual_tools,
        ui_context,
        billing_context,
        agent_mode,
        session_id,
      })),
      max_queue_messages: MAX_QUEUE_MESSAGES,
    };
  }
}
