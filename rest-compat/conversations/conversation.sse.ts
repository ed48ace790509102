import type { ExecutionResult } from 'graphql';
import { contractError } from '../../subgraphs/shared/errors.js';
import { errorResponse } from '../errors.js';
import type { EventStreamHandler } from '../route-table.js';

const START = `mutation ConversationStart($project_id: Int!, $content: String, $conversation: ID, $contextual_tools: JSON, $ui_context: JSON,
  $billing_context: JSON, $trace_id: String, $session_id: String, $agent_mode: String, $resume_payload: JSON) {
  create_conversation(project_id: $project_id, content: $content, conversation: $conversation, contextual_tools: $contextual_tools,
    ui_context: $ui_context, billing_context: $billing_context, trace_id: $trace_id, session_id: $session_id, agent_mode: $agent_mode,
    resume_payload: $resume_payload) { conversation run_id }
}`;

const FOLLOW = `subscription ConversationRun($conversation: ID!, $run: ID) {
  conversation_stream(conversation: $conversation, run: $run) { sequence kind status detail message_id delta data }
}`;

interface StreamEvent {
  kind: 'conversation' | 'status' | 'message' | 'message_chunk' | 'update';
  status: string | null;
  detail: string | null;
  message_id: string | null;
  delta: string | null;
  data: unknown;
}

/** PostHog sends a comment this often, so that proxies keep an idle stream open. */
const KEEPALIVE_MS = 15_000;
const encoder = new TextEncoder();

/**
 * POST …/conversations/ as PostHog streams it: the run is started (or, without `content`, found)
 * through the router like any operation, then followed through the router's
 * `conversation_stream(run)` from its first event, as SSE frames `conversation`, `message` (the
 * answer repeated with its content so far, as PostHog does), `update` and `status`. The stream ends
 * with the run; a client that leaves stops following, not the run (it may re-attach).
 */
export const streamConversation: EventStreamHandler = async (_request, variables, router, authorization) => {
  const started = await router.execute({ query: START, variables, authorization });
  const run = (started.data as { create_conversation?: { conversation: string; run_id: string } } | null | undefined)?.create_conversation;
  if (!run) {
    const { status, body } = contractError(started.errors?.[0] ?? { message: 'The conversation could not be started.' });
    return errorResponse(status, body);
  }
  const results = router.subscribe({ query: FOLLOW, variables: { conversation: run.conversation, run: run.run_id }, authorization });
  const frames = new FrameWriter();
  let keepalive: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      keepalive = setInterval(() => controller.enqueue(encoder.encode(': keepalive\n\n')), KEEPALIVE_MS);
    },
    async pull(controller) {
      const next = await results.next();
      const frame = next.done ? null : frames.frameOf(next.value);
      if (frame) controller.enqueue(encoder.encode(frame));
      if (next.done || frames.ended) {
        clearInterval(keepalive);
        await results.return?.();
        controller.close();
      }
    },
    async cancel() {
      clearInterval(keepalive);
      await results.return?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
  });
};

/** Turns stream events into PostHog's frames, keeping each answer's content so far. */
class FrameWriter {
  ended = false;
  private readonly contents = new Map<string, string>();

  frameOf(result: ExecutionResult): string {
    const event = (result.data as { conversation_stream?: StreamEvent } | null | undefined)?.conversation_stream;
    if (!event) {
      this.ended = true;
      return frame('status', { type: 'generation_error', error: result.errors?.[0]?.message ?? 'The stream ended.' });
    }
    switch (event.kind) {
      case 'conversation':
        return frame('conversation', event.data);
      case 'message_chunk': {
        const content = (this.contents.get(event.message_id!) ?? '') + (event.delta ?? '');
        this.contents.set(event.message_id!, content);
        return frame('message', { type: 'ai', id: event.message_id, content });
      }
      case 'message':
        return frame('message', event.data);
      case 'update':
        return frame('update', event.data);
      case 'status':
        return this.status(event);
    }
  }

  /** `ack` when the run starts, `generation_error` when it failed; any status but `ack` ends the run and the stream. */
  private status(event: StreamEvent): string {
    if (event.detail === 'ack') return frame('status', { type: 'ack' });
    this.ended = true;
    if (event.detail === 'generation_error') return frame('status', { type: 'generation_error' });
    return '';
  }
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
