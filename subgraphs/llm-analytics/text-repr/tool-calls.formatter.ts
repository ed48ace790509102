/** Tool calls inside messages (section 3.5.3, argument rendering). */
import { getOr, isObject, own, truthy, type JsonObject } from './json.guards.js';
import { pyJsonDumps, pyStr } from './python.format.js';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * `name(key=<JSON>, ...)`: args given as an object, or as a string that parses as a JSON object, become
 * `key=<json.dumps of value>` pairs in key order; an empty object or no args give `name()`; any other non-empty
 * value is printed as it is (`name(<raw string>)`, Python's str() for other values).
 */
export function formatSingleToolCall(name: unknown, args: unknown): string {
  let parsed: unknown;
  if (isObject(args)) parsed = args;
  else if (typeof args === 'string' && args !== '') parsed = parseJson(args);
  const label = pyStr(name);
  if (isObject(parsed)) {
    const pairs = Object.keys(parsed).map((key) => `${key}=${pyJsonDumps(parsed[key])}`);
    return `${label}(${pairs.join(', ')})`;
  }
  return truthy(args) ? `${label}(${pyStr(args)})` : `${label}()`;
}

/**
 * `Tool calls: <count>` and one `  - name(args)` line per call: OpenAI `{function: {name, arguments}}` or LangChain
 * `{name, args}`; a call that is not an object is printed as it is. A single object instead of an array counts as
 * one call (Python would iterate its keys).
 */
export function formatToolCalls(toolCalls: unknown): string[] {
  const calls = Array.isArray(toolCalls) ? toolCalls : [toolCalls];
  const lines = [`Tool calls: ${calls.length}`];
  for (const call of calls) {
    if (!isObject(call)) {
      lines.push(`  - ${pyStr(call)}`);
      continue;
    }
    const fn = own(call, 'function');
    const text = isObject(fn)
      ? formatSingleToolCall(getOr(fn, 'name', 'unknown'), getOr(fn, 'arguments', ''))
      : formatSingleToolCall(getOr(call, 'name', 'unknown'), getOr(call, 'args', ''));
    lines.push(`  - ${text}`);
  }
  return lines;
}

/** Tool calls carried as content blocks `{type: "tool-call" | "function", function: {...}}` of an output message. */
export function extractToolCallsFromContent(content: unknown): JsonObject[] {
  if (!Array.isArray(content)) return [];
  const calls: JsonObject[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    const type = own(block, 'type');
    const fn = own(block, 'function');
    if ((type === 'tool-call' || type === 'function') && isObject(fn)) calls.push({ function: fn });
  }
  return calls;
}
