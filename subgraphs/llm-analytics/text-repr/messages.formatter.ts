/** Message arrays and the INPUT / OUTPUT sections (sections 3.5.3 and 3.5.5). */
import { extractTextContent } from './content.extraction.js';
import { truncateContent } from './content.truncation.js';
import { firstTruthy, getOr, has, isObject, own, pushAll, truthy, type JsonObject } from './json.guards.js';
import { pyJsonDumpsCapped, pyStr, pyTypeName } from './python.format.js';
import { MAX_UNPARSED_LENGTH, SEPARATOR } from './text-repr.constants.js';
import type { TextReprOptions } from './text-repr.options.js';
import { extractToolCallsFromContent, formatToolCalls } from './tool-calls.formatter.js';
import type { TextLine } from './text-line.js';

/**
 * Each object message as ``, `[i+1] ROLE`, ``, its (truncated) content, its tool calls, and a separator before the
 * next element. Elements that are not objects are skipped but keep their index (and the element before them still
 * gets its separator, as in PostHog).
 */
export function formatMessagesArray(messages: readonly unknown[], options: TextReprOptions): TextLine[] {
  const lines: TextLine[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!isObject(message)) continue;
    const role = firstTruthy(own(message, 'role'), own(message, 'type'), 'unknown');
    lines.push('', `[${i + 1}] ${pyStr(role).toUpperCase()}`, '');

    const content = getOr(message, 'content', '');
    if (truthy(content)) {
      const text = extractTextContent(content);
      if (text) pushAll(lines, truncateContent(text, options));
    }
    const toolCalls = getOr(message, 'tool_calls', []);
    if (truthy(toolCalls)) {
      lines.push('');
      pushAll(lines, formatToolCalls(toolCalls));
    }
    if (i < messages.length - 1) lines.push('', SEPARATOR);
  }
  return lines;
}

/**
 * `INPUT:` section: a string (truncated), a messages array, or `[Unparsed input format: <type>]` with the JSON cut
 * at 500 characters. Nothing for a missing or empty input.
 */
export function formatInputMessages(aiInput: unknown, options: TextReprOptions): TextLine[] {
  if (!truthy(aiInput)) return [];
  const lines: TextLine[] = ['', 'INPUT:'];
  if (typeof aiInput === 'string') {
    lines.push('');
    pushAll(lines, truncateContent(aiInput, options));
  } else if (Array.isArray(aiInput)) {
    pushAll(lines, formatMessagesArray(aiInput, options));
  } else {
    lines.push('', `[Unparsed input format: ${pyTypeName(aiInput)}]`, pyJsonDumpsCapped(aiInput, MAX_UNPARSED_LENGTH));
  }
  return lines;
}

/**
 * `OUTPUT:` section: `$ai_output` when it is a non-empty string, else the messages of `$ai_output_choices` (an
 * array, or an object with a `choices` array): each choice's `message` object, or the choice itself when it has
 * `role` or `content`. Tool-call content blocks replace `tool_calls`.
 */
export function formatOutputMessages(aiOutput: unknown, aiOutputChoices: unknown, options: TextReprOptions): TextLine[] {
  if (typeof aiOutput === 'string' && aiOutput !== '') {
    const lines: TextLine[] = ['', 'OUTPUT:', ''];
    pushAll(lines, truncateContent(aiOutput, options));
    return lines;
  }
  let choices = aiOutputChoices;
  if (isObject(aiOutputChoices) && Array.isArray(own(aiOutputChoices, 'choices'))) choices = aiOutputChoices.choices;
  if (!Array.isArray(choices) || choices.length === 0) return [];

  const messages: JsonObject[] = [];
  for (const choice of choices) {
    if (!isObject(choice)) continue;
    let message = own(choice, 'message');
    if (!isObject(message) || !truthy(message)) {
      if (!has(choice, 'role') && !has(choice, 'content')) continue;
      message = choice;
    }
    const source = message as JsonObject;
    const content = getOr(source, 'content', '');
    const contentToolCalls = extractToolCallsFromContent(content);
    messages.push({
      role: getOr(source, 'role', 'assistant'),
      content,
      tool_calls: contentToolCalls.length > 0 ? contentToolCalls : getOr(source, 'tool_calls', []),
    });
  }
  if (messages.length === 0) return [];
  const lines: TextLine[] = ['', 'OUTPUT:'];
  pushAll(lines, formatMessagesArray(messages, options));
  return lines;
}
