import { randomUUID } from 'node:crypto';
import { generateText, stepCountIs, streamText, type TextStreamPart, type ToolSet } from 'ai';
import { AppError } from '../../shared/errors.js';
import { resubscribing } from '../../shared/pubsub/resubscribing.js';
import { llmAnalyticsFacade, type OpenedModel } from '../../llm-analytics/facade.js';
import { projectsFacade } from '../../projects/facade.js';
import { ConversationStatus } from '../conversations/conversation.entity.js';
import { appendMessages, recentMessages, type StoredMessage } from '../conversations/message.repository.js';
import { StreamEventKind } from '../stream/conversation-stream.event.js';
import { StreamWriter } from '../stream/conversation-stream.js';
import { modelMessages, systemPrompt } from './assistant.prompt.js';
import { assistantTools } from './assistant.tools.js';
import { controlTopic, type RunControl } from './run.control.js';
import { endRun, heartbeat, type RunEnding } from './run.lifecycle.js';
import { localRuns, type LocalRun } from './run.registry.js';
import type { RunContext, RunPlan } from './run.start.js';

/** Tool calls and answers one run may take turns for. */
const MAX_STEPS = 8;
/** Messages the model reads back. */
const HISTORY = 200;
const HEARTBEAT_MS = 5000;

/** The answer being written in the current step, and the tool calls it made. */
interface Step {
  id: string;
  text: string;
  calls: { id: string; name: string; args: unknown }[];
  results: StoredMessage[];
}

const newStep = (): Step => ({ id: randomUUID(), text: '', calls: [], results: [] });

/**
 * One answer of the assistant: the model is called through the AI SDK with the conversation so
 * far and the tools, for as many steps as its tool calls need; every piece is streamed to
 * subscribers as it comes, and every step is stored once complete, so that a cancel, a failure or
 * a crash keeps what was produced.
 */
export class AssistantRun implements LocalRun {
  private readonly abort = new AbortController();
  private stopping: 'canceled' | 'shutdown' | null = null;
  private readonly writer: StreamWriter;
  private step = newStep();
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: RunContext,
    readonly plan: RunPlan,
  ) {
    this.writer = new StreamWriter(ctx.pubsub, plan.conversationId, plan.runId, ctx.log);
  }

  get conversationId(): string {
    return this.plan.conversationId;
  }

  /** Starts a planned run (its transaction committed): announces it, then answers in the background. */
  static async launch(ctx: RunContext, plan: RunPlan): Promise<AssistantRun> {
    const run = new AssistantRun(ctx, plan);
    const runs = localRuns(ctx.pubsub);
    runs.add(run);
    if (plan.created) void run.writer.emit({ kind: StreamEventKind.conversation, data: plan.brief });
    void run.writer.emit({ kind: StreamEventKind.status, status: ConversationStatus.in_progress, detail: 'ack' });
    await run.writer.emit({ kind: StreamEventKind.message, message_id: plan.human.id, data: plan.human });
    run.done = run
      .execute()
      .catch((error: unknown) => ctx.log.error({ err: error, conversation: plan.conversationId }, 'assistant run failed; the worker ends it'))
      .finally(() => runs.delete(run));
    return run;
  }

  async stop(reason: 'canceled' | 'shutdown'): Promise<void> {
    this.stopping ??= reason;
    this.abort.abort();
    await this.done;
  }

  private async execute(): Promise<void> {
    const control = this.listenForCancel();
    const beat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    let ending: RunEnding = 'finished';
    let failure: StoredMessage | null = null;
    let opened: OpenedModel | null = null;
    try {
      opened = await llmAnalyticsFacade.openModel(this.ctx.em, this.plan.environmentId);
      await this.answer(opened);
    } catch (error) {
      if (!this.stopping) {
        ending = 'generation_error';
        failure = this.failureMessage(error, opened);
      }
    } finally {
      clearInterval(beat);
      await control.return?.();
    }
    if (this.stopping) ending = this.stopping;
    await this.end(ending, failure, opened);
  }

  private async answer(opened: OpenedModel): Promise<void> {
    const [history, overview] = await Promise.all([
      recentMessages(this.ctx.em, this.plan.conversationId, HISTORY),
      projectsFacade.environmentOverview(this.ctx.em, this.plan.environmentId),
    ]);
    const result = streamText({
      model: opened.model,
      system: systemPrompt(overview?.project_name ?? null, this.plan.agentMode),
      messages: modelMessages(history),
      tools: assistantTools({ em: this.ctx.em, environmentId: this.plan.environmentId, scopes: this.plan.scopes }),
      stopWhen: stepCountIs(MAX_STEPS),
      abortSignal: this.abort.signal,
      timeout: { stepMs: llmAnalyticsFacade.timeoutMs() },
      // No retries: a failing provider ends the run at once, with what was produced kept.
      maxRetries: 0,
      // The failure comes through fullStream as its `error` part, which ends the run and is logged
      // there; the SDK's default would also print it raw on stderr, between the JSON log lines.
      onError: () => undefined,
    });
    for await (const part of result.fullStream) await this.onPart(part);
    if (opened.key_id) await llmAnalyticsFacade.markKeyUsed(this.ctx.em, opened.key_id);
  }

  private async onPart(part: TextStreamPart<ToolSet>): Promise<void> {
    switch (part.type) {
      case 'start-step':
        this.step = newStep();
        return;
      case 'text-delta':
        this.step.text += part.text;
        void this.writer.emit({ kind: StreamEventKind.message_chunk, message_id: this.step.id, delta: part.text });
        return;
      case 'tool-call':
        this.step.calls.push({ id: part.toolCallId, name: part.toolName, args: part.input });
        void this.writer.emit({ kind: StreamEventKind.update, data: { id: this.step.id, tool_call_id: part.toolCallId, content: `Running ${part.toolName}` } });
        return;
      case 'tool-result':
      case 'tool-error':
        this.step.results.push({
          type: 'tool',
          id: randomUUID(),
          tool_call_id: part.toolCallId,
          content: JSON.stringify(part.type === 'tool-result' ? part.output : { error: 'The tool failed.' }),
        });
        if (part.type === 'tool-error') this.ctx.log.warn({ err: part.error, tool: part.toolName }, 'assistant tool failed');
        return;
      case 'finish-step':
        await this.saveStep();
        return;
      case 'error':
        throw part.error;
      default:
        return;
    }
  }

  /** A complete step: the answer with its tool calls, then the tools' results, stored and announced. */
  private async saveStep(): Promise<void> {
    const messages = this.stepMessages();
    this.step = newStep();
    if (messages.length === 0) return;
    await appendMessages(this.ctx.em, this.plan.conversationId, messages);
    for (const message of messages) void this.writer.emit({ kind: StreamEventKind.message, message_id: message.id, data: message });
  }

  private stepMessages(): StoredMessage[] {
    const { id, text, calls, results } = this.step;
    if (!text && calls.length === 0) return [];
    return [{ type: 'ai', id, content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, ...results];
  }

  /** Stores what the run left (an unfinished answer, a failure note), ends it, and starts the next queued message. */
  private async end(ending: RunEnding, failure: StoredMessage | null, opened: OpenedModel | null): Promise<void> {
    // An unfinished step keeps its text only: its tool calls have no results.
    const partial = this.step.text ? [{ type: 'ai' as const, id: this.step.id, content: this.step.text }] : [];
    const last = [...partial, ...(failure ? [failure] : [])];
    const { ended, next } = await endRun(this.ctx.em, { conversationId: this.plan.conversationId, runId: this.plan.runId, ending }, last).catch((error: unknown) => {
      this.ctx.log.error({ err: error, conversation: this.plan.conversationId }, 'assistant run could not be ended; the worker will');
      return { ended: false, next: null };
    });
    for (const message of ended ? last : []) void this.writer.emit({ kind: StreamEventKind.message, message_id: message.id, data: message });
    if (ended) {
      await this.writer.emit({
        kind: StreamEventKind.status,
        status: next ? ConversationStatus.in_progress : ConversationStatus.idle,
        detail: ending === 'shutdown' ? 'interrupted' : ending,
      });
    }
    if (ended && this.plan.created && ending === 'finished' && opened) void this.nameConversation(opened);
    if (next) await AssistantRun.launch(this.ctx, next);
  }

  /** After the first answer the assistant titles the conversation (best effort: the first message's line stays otherwise). */
  private async nameConversation(opened: OpenedModel): Promise<void> {
    try {
      const { text } = await generateText({
        model: opened.model,
        system: 'Write a short title (at most six words, no quotes) for a conversation that starts with the user message below.',
        prompt: this.plan.human.content,
        maxOutputTokens: 30,
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(10_000),
      });
      const title = text.trim().replace(/^["']|["']$/g, '').slice(0, 200);
      if (title) await this.ctx.em.execute('update conversations.conversations set title = ? where id = ?', [title, this.plan.conversationId]);
    } catch (error) {
      this.ctx.log.debug({ err: error }, 'conversation not titled');
    }
  }

  private failureMessage(error: unknown, opened: OpenedModel | null): StoredMessage {
    const id = randomUUID();
    if (error instanceof AppError && error.status < 500) return { type: 'ai/failure', id, content: `The assistant cannot answer: ${error.message}` };
    if (!opened) {
      this.ctx.log.error({ err: error, conversation: this.plan.conversationId }, 'assistant run failed');
      return { type: 'ai/failure', id, content: 'The assistant failed; try again.' };
    }
    const { kind, message, loggable } = llmAnalyticsFacade.describeFailure(error, opened.provider);
    this.ctx.log.warn({ failure: kind, provider: opened.provider, model: opened.model_id, error: loggable }, 'assistant model call failed');
    const why = { auth: 'rejected the API key', rate_limit: 'is rate limiting this key', timeout: 'did not answer in time', network: 'could not be reached', rejected: 'refused the request', other: 'failed' }[kind];
    return { type: 'ai/failure', id, content: `${opened.label} (${opened.model_id}) ${why}${message ? `: ${message}` : ''}.` };
  }

  /** Keeps the run alive; a status of canceling (a cancel whose announcement was missed) stops it. */
  private async beat(): Promise<void> {
    const status = await heartbeat(this.ctx.em, this.plan.conversationId, this.plan.runId).catch(() => undefined);
    if (status === ConversationStatus.canceling || status === null) void this.stop('canceled');
  }

  /** A cancel may come through any process: it is announced on the conversation's control topic. */
  private listenForCancel(): AsyncIterableIterator<unknown> {
    // A cancel lost with the pub/sub's connection is in the database: the heartbeat's look finds it.
    const control = resubscribing<RunControl>(this.ctx.pubsub, controlTopic(this.plan.conversationId), () => void this.beat());
    void (async () => {
      await this.ctx.pubsub.ready();
      // A cancel committed before the subscription took effect is seen here.
      if ((await heartbeat(this.ctx.em, this.plan.conversationId, this.plan.runId)) === ConversationStatus.canceling) void this.stop('canceled');
      for await (const { payload } of control) if (payload.run_id === this.plan.runId) void this.stop('canceled');
    })().catch(() => undefined);
    return control;
  }
}
