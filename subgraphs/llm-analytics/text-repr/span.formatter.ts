/** `$ai_span` layout (section 3.5.8). */
import { truncateContent } from './content.truncation.js';
import { asObject, getOr, has, isObject, own, pushAll, truthy, type JsonObject } from './json.guards.js';
import { formatMessagesArray } from './messages.formatter.js';
import { literalEval } from './python-literal.parser.js';
import { pyJsonDumps, pyStr, pyTypeName } from './python.format.js';
import { NotJsonSerializableError, PyDict } from './python.values.js';
import { SEPARATOR, TITLE_RULE } from './text-repr.constants.js';
import type { TextReprOptions } from './text-repr.options.js';
import { formatSingleToolCall } from './tool-calls.formatter.js';
import type { TextLine } from './text-line.js';

/** A state the formatter cannot show (Python's exception path); rendered as `[UNABLE_TO_PARSE: <type>]`. */
class UnparseableStateError extends Error {}

/** A string state that is a Python literal dict or list is shown as indented JSON, anything else as it is. */
function formatStringState(state: string, options: TextReprOptions): TextLine[] {
  const literal = literalEval(state);
  if (literal.ok && (Array.isArray(literal.value) || literal.value instanceof PyDict)) {
    return truncateContent(pyJsonDumps(literal.value, 2), options);
  }
  // Python's TypeError (an unhashable key) escapes literal_eval's ValueError/SyntaxError handling.
  if (!literal.ok && literal.typeError) throw new UnparseableStateError();
  return truncateContent(state, options);
}

function formatToolCallWithContext(state: JsonObject, options: TextReprOptions): TextLine[] {
  const lines: TextLine[] = [];
  const nested = getOr(state, 'state', {});
  const toolCall = getOr(state, 'tool_call', {});
  if (isObject(nested)) {
    const messages = getOr(nested, 'messages', []);
    if (Array.isArray(messages) && messages.length > 0) pushAll(lines, formatMessagesArray(messages, options));
    const remaining = own(nested, 'remaining_steps');
    if (remaining !== undefined && remaining !== null) lines.push('', `Remaining steps: ${pyStr(remaining)}`);
  }
  if (isObject(toolCall) && truthy(toolCall)) {
    lines.push('', 'Tool Call:', `  ${formatSingleToolCall(getOr(toolCall, 'name', 'unknown'), getOr(toolCall, 'args', {}))}`);
  }
  return lines;
}

function formatToolResult(state: JsonObject, options: TextReprOptions): TextLine[] {
  const header = ['[TOOL RESULT]'];
  const name = own(state, 'name');
  const status = own(state, 'status');
  if (truthy(name)) header.push(pyStr(name));
  if (truthy(status)) header.push(`(${pyStr(status)})`);
  const lines: TextLine[] = [header.join(' ')];
  const content = getOr(state, 'content', '');
  if (truthy(content)) {
    lines.push('');
    pushAll(lines, truncateContent(pyStr(content), options));
  }
  return lines;
}

function formatStateBody(state: unknown, options: TextReprOptions): TextLine[] {
  if (typeof state === 'string') return formatStringState(state, options);
  if (Array.isArray(state)) {
    const first: unknown = state[0];
    if (isObject(first) && (has(first, 'role') || has(first, 'content'))) return formatMessagesArray(state, options);
    return truncateContent(pyJsonDumps(state, 2), options);
  }
  if (isObject(state)) {
    if (own(state, '__type') === 'tool_call_with_context') return formatToolCallWithContext(state, options);
    const messages = own(state, 'messages');
    if (Array.isArray(messages) && messages.length > 0) return formatMessagesArray(messages, options);
    if (own(state, 'type') === 'tool') return formatToolResult(state, options);
    return truncateContent(pyJsonDumps(state, 2), options);
  }
  return [pyStr(state)];
}

/** ``, `<LABEL>:`, ``, then the rendered state; nothing for an empty state. */
function formatState(state: unknown, label: string, options: TextReprOptions): TextLine[] {
  if (!truthy(state)) return [];
  const lines: TextLine[] = ['', `${label}:`, ''];
  try {
    pushAll(lines, formatStateBody(state, options));
  } catch (error) {
    if (!(error instanceof UnparseableStateError) && !(error instanceof NotJsonSerializableError)) throw error;
    lines.push(`[UNABLE_TO_PARSE: ${pyTypeName(state)}]`);
  }
  return lines;
}

/** Title (`$ai_span_name` upper-cased, default SPAN) and its rule, the error, then the input and output states. */
export function formatSpanLines(event: JsonObject, options: TextReprOptions): TextLine[] {
  const props = asObject(own(event, 'properties'));
  const name = own(props, '$ai_span_name');
  // A null name would crash PostHog (None.upper()); it falls back to the default instead.
  const lines: TextLine[] = [(name === undefined || name === null ? 'Span' : pyStr(name)).toUpperCase(), TITLE_RULE];

  const error = own(props, '$ai_error');
  if (truthy(error)) {
    lines.push(SEPARATOR, '', 'ERROR:', '');
    if (typeof error === 'string') lines.push(error);
    else if (isObject(error)) lines.push(pyJsonDumps(error, 2));
    else lines.push(pyStr(error));
  }
  const input = formatState(own(props, '$ai_input_state'), 'INPUT STATE', options);
  if (input.length > 0) {
    lines.push(SEPARATOR);
    pushAll(lines, input);
  }
  const output = formatState(own(props, '$ai_output_state'), 'OUTPUT STATE', options);
  if (output.length > 0) {
    lines.push(SEPARATOR);
    pushAll(lines, output);
  }
  return lines;
}
