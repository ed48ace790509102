/** Text of a message's `content` in its many shapes (section 3.5.4). */
import { getOr, has, isObject, own, truthy, type JsonObject } from './json.guards.js';
import { pyJsonDumps, pyReprCapped, pyStr } from './python.format.js';
import { MAX_NESTING, MAX_REPR_LENGTH } from './text-repr.constants.js';
import { formatSingleToolCall } from './tool-calls.formatter.js';

const SPECIAL_BLOCK_TYPES = new Set<unknown>(['tool-call', 'tool_use', 'function']);

function isSpecialBlock(block: unknown): boolean {
  if (!isObject(block)) return false;
  if (SPECIAL_BLOCK_TYPES.has(own(block, 'type'))) return true;
  const content = own(block, 'content');
  return isObject(content) && has(content, 'toolName');
}

/** A block of a content array holding tool calls; null for blocks to skip (`function`, handled as tool calls). */
function formatSpecialBlock(block: JsonObject): string | null {
  const type = own(block, 'type');
  if (type === 'tool-call') return formatSingleToolCall(getOr(block, 'toolName', 'unknown'), getOr(block, 'input', {}));
  if (type === 'tool_use') {
    let input = getOr(block, 'input', {});
    const partial = own(block, 'partial_json');
    if (!truthy(input) && typeof partial === 'string') {
      try {
        input = JSON.parse(partial) as unknown;
      } catch {
        // Unparseable partial JSON leaves the (empty) input as it was.
      }
    }
    return formatSingleToolCall(getOr(block, 'name', 'unknown'), input);
  }
  if (type === 'function') return null;
  const content = own(block, 'content');
  if (isObject(content)) {
    if (has(content, 'toolName')) return formatSingleToolCall(content.toolName, getOr(content, 'args', ''));
    if (has(content, 'result')) return `[Tool result: ${pyStr(getOr(content, 'toolName', 'unknown'))}]`;
  }
  return safeExtractText(block, 0);
}

/**
 * Python's `safe_extract_text`: a string as it is; an object's `text` (str()) or `content` (recursively), else its
 * JSON; an array's text items joined by newlines with blank lines between them and `[TYPE]` labels for typed
 * blocks other than `text`; else the repr, capped at 500 characters plus `...`.
 */
function safeExtractText(content: unknown, depth: number): string {
  if (typeof content === 'string') return content;
  if (isObject(content)) {
    if (has(content, 'text')) return pyStr(content.text);
    if (has(content, 'content')) {
      return depth < MAX_NESTING ? safeExtractText(content.content, depth + 1) : pyReprCapped(content.content, MAX_REPR_LENGTH);
    }
    return pyJsonDumps(content);
  }
  if (Array.isArray(content)) {
    const parts: string[] = [];
    for (let i = 0; i < content.length; i++) {
      const item: unknown = content[i];
      if (isObject(item)) {
        const text = own(item, 'text');
        const value = truthy(text) ? text : own(item, 'content');
        if (!truthy(value)) continue;
        if (i > 0 && parts.length > 0) parts.push('');
        const type = own(item, 'type');
        if (truthy(type) && type !== 'text') parts.push(`[${pyStr(type).toUpperCase()}]`, '');
        parts.push(pyStr(value));
      } else if (typeof item === 'string') {
        if (i > 0 && parts.length > 0) parts.push('');
        parts.push(item);
      }
    }
    if (parts.length > 0) return parts.join('\n');
  }
  return pyReprCapped(content, MAX_REPR_LENGTH);
}

/**
 * The text of a message's content. An array with tool-call blocks renders each block inline (`name(args)`,
 * `[Tool result: name]`, or its text) joined by blank lines; everything else goes through `safeExtractText`.
 */
export function extractTextContent(content: unknown): string {
  if (Array.isArray(content) && content.some(isSpecialBlock)) {
    const parts: string[] = [];
    for (const block of content) {
      if (isObject(block)) {
        const text = formatSpecialBlock(block);
        if (text) parts.push(text);
      } else if (typeof block === 'string') {
        parts.push(block);
      }
    }
    if (parts.length > 0) return parts.join('\n\n');
  }
  return safeExtractText(content, 0);
}
