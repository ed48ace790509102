import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { requireUserId } from '../../shared/subgraph/access.js';
import type { Actor } from '../../shared/auth/actor.js';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { llmAnalyticsFacade } from '../../llm-analytics/facade.js';
import { projectsFacade } from '../../projects/facade.js';
import { AssistantRun } from '../assistant/assistant.run.js';
import { controlTopic, type RunControl } from '../assistant/run.control.js';
import { beginRun, type RunPlan } from '../assistant/run.start.js';
import { Conversation, ConversationStatus, ConversationType } from './conversation.entity.js';
import { OTHER_USERS_CONVERSATION, ownConversation } from './conversation.access.js';
import type { AppendMessageArgs, ListConversationsArgs, StartConversationArgs } from './conversation.inputs.js';
import { conversationRecord } from './conversation.mapper.js';
import type { AppendedMessageRecord, ConversationRecord, ConversationStartRecord } from './conversation.record.js';
import { context, MAX_APPENDED_LENGTH, messageContext, messageText, optionalMessageText, optionalUuid, provisionalTitle } from './conversation.rules.js';
import { appendMessages } from './message.repository.js';
import { readPage } from '../../shared/db/find-page.js';

/** The types PostHog lists (tool-call conversations are internal to other features). */
const LISTED_TYPES = [ConversationType.assistant, ConversationType.deep_research, ConversationType.slack];

/** Every rule of conversations; each method is scoped to an environment the actor reaches, and to the actor's own conversations. */
export class ConversationService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
    private readonly log: Logger,
  ) {}

  /** The caller's titled conversations, most recently active first (PostHog's list). */
  async list(actor: Actor, args: ListConversationsArgs): Promise<Page<ConversationRecord>> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const window = pageWindow(args);
    const [rows, count] = await readPage(
      this.em,
      Conversation,
      { environment_id: environment.id, user_id: requireUserId(actor), title: { $ne: null }, type: { $in: LISTED_TYPES }, is_internal: false },
      { orderBy: { updated_at: 'desc', id: 'asc' }, limit: window.limit, offset: window.offset },
    );
    return toPage(rows.map(conversationRecord), count, window);
  }

  async get(actor: Actor, environmentId: number, id: string): Promise<ConversationRecord> {
    return conversationRecord(await ownConversation(this.em, actor, environmentId, id));
  }

  /**
   * With `content`: a new conversation (the client's id, or a new one) or the next message of an
   * idle one, answered by a run that starts now. Without: the run in progress, to re-attach to.
   */
  async start(actor: Actor, args: StartConversationArgs): Promise<ConversationStartRecord> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const userId = requireUserId(actor);
    const echo = {
      content: optionalMessageText(args.content),
      ...messageContext(args),
      trace_id: optionalUuid(args.trace_id, 'trace_id'),
      resume_payload: context(args.resume_payload, 'resume_payload'),
    };
    const id = optionalUuid(args.conversation, 'conversation');
    // Nothing changes unless a model can answer.
    if (echo.content !== null) await llmAnalyticsFacade.openModel(this.em, environment.id);
    const { conversation, plan } = await this.em
      .fork()
      .transactional(async (tx) => {
        const existing = id ? await tx.findOne(Conversation, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE }) : null;
        if (existing && existing.environment_id !== environment.id) throw new NotFoundError();
        if (existing && existing.user_id !== userId) throw new ValidationError(OTHER_USERS_CONVERSATION);
        if (echo.content === null) return { conversation: attachable(existing), plan: null as RunPlan | null };
        if (existing && existing.status !== ConversationStatus.idle) throw new ConflictError('Cannot resume streaming with a new message', 'conversation_busy');
        let conversation = existing;
        if (!conversation) {
          conversation = Object.assign(new Conversation(), { environment_id: environment.id, project_id: environment.project_id, user_id: userId, title: provisionalTitle(echo.content) });
          if (id) conversation.id = id;
          tx.persist(conversation);
        }
        const plan = await beginRun(tx, conversation, { ...echo, content: echo.content, scopes: actor.scopes }, !existing);
        return { conversation, plan };
      })
      .catch((error: unknown) => {
        // Two requests creating the same new conversation at once: the second finds it busy.
        if (error instanceof UniqueConstraintViolationException) throw new ConflictError('Cannot resume streaming with a new message', 'conversation_busy');
        throw error;
      });
    if (plan) await AssistantRun.launch({ em: this.em.fork(), pubsub: this.pubsub, log: this.log }, plan);
    return { ...echo, conversation: conversation.id, run_id: conversation.run_id!, status: conversation.status };
  }

  /** Stores a client-made message (an assistant-side one, as PostHog's) without running the model. */
  async append(actor: Actor, args: AppendMessageArgs): Promise<AppendedMessageRecord> {
    const content = messageText(args.content, MAX_APPENDED_LENGTH);
    const conversation = await ownConversation(this.em, actor, args.project_id, args.conversation);
    const message = { type: 'ai' as const, id: randomUUID(), content };
    await appendMessages(this.em, conversation.id, [message]);
    await this.em.nativeUpdate(Conversation, { id: conversation.id }, { updated_at: new Date() });
    return { id: message.id, content };
  }

  /** Asks the run in progress to stop (whichever process carries it out); it keeps what it produced and the status returns to idle. */
  async cancel(actor: Actor, environmentId: number, id: string): Promise<ConversationRecord> {
    const owned = await ownConversation(this.em, actor, environmentId, id);
    const conversation = await this.em.fork().transactional(async (tx) => {
      const locked = await tx.findOneOrFail(Conversation, { id: owned.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (locked.status === ConversationStatus.in_progress) Object.assign(locked, { status: ConversationStatus.canceling, updated_at: new Date() });
      return locked;
    });
    if (conversation.status === ConversationStatus.canceling) {
      const control: RunControl = { run_id: conversation.run_id!, action: 'cancel' };
      await this.pubsub.publish(controlTopic(conversation.id), control);
    }
    return conversationRecord(conversation);
  }
}

/** Re-attaching needs a run in progress (PostHog's 400s otherwise). */
function attachable(conversation: Conversation | null): Conversation {
  if (!conversation) throw new ValidationError('Cannot stream from non-existent conversation');
  if (conversation.status === ConversationStatus.idle) throw new ValidationError('Cannot continue streaming from an idle conversation');
  return conversation;
}
