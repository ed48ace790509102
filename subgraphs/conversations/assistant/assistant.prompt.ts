import type { ModelMessage } from 'ai';
import type { StoredMessage } from '../conversations/message.repository.js';

/** The assistant's brief: what it is, what it may read, how it answers. */
export function systemPrompt(projectName: string | null, agentMode: string | null, now = new Date()): string {
  return [
    `You are the analytics assistant of the product-analytics project "${projectName ?? 'unknown'}".`,
    "Answer questions about the project's data with the tools: count events, show event trends, list persons, read the project's settings.",
    'Call a tool rather than guess a number; when a tool answers with an error, say what was missing.',
    `The current time is ${now.toISOString()} (UTC).${agentMode ? ` The user works in ${agentMode.replace('_', ' ')} mode.` : ''}`,
    'Answer concisely, in Markdown.',
  ].join('\n');
}

/**
 * Stored messages as the model reads them back: the user's, the answers with their tool calls,
 * the tools' results. Failures are the platform's notes, not the model's words, and stay out.
 */
export function modelMessages(stored: StoredMessage[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const names = new Map<string, string>();
  for (const message of stored) {
    if (message.type === 'human') messages.push({ role: 'user', content: message.content });
    else if (message.type === 'ai') {
      const calls = message.tool_calls ?? [];
      for (const call of calls) names.set(call.id, call.name);
      messages.push({
        role: 'assistant',
        content: [
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
          ...calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: call.args })),
        ],
      });
    } else if (message.type === 'tool' && message.tool_call_id && names.has(message.tool_call_id)) {
      const toolCallId = message.tool_call_id;
      messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: names.get(toolCallId)!, output: { type: 'text', value: message.content } }] });
    }
  }
  return messages;
}
