/** `$ai_generation` and `$ai_embedding` layouts (sections 3.5.5 and 3.5.7) and the per-event dispatch. */
import { asObject, isObject, own, pushAll, truthy, type JsonObject } from './json.guards.js';
import { formatInputMessages, formatOutputMessages } from './messages.formatter.js';
import { pyStr } from './python.format.js';
import { formatSpanLines } from './span.formatter.js';
import { MAX_NESTING, SEPARATOR } from './text-repr.constants.js';
import type { TextReprOptions } from './text-repr.options.js';
import { formatTools } from './tools.formatter.js';
import type { TextLine } from './text-line.js';

/** YAML-like lines of an error object: `key: value`, nested containers as `key:` / `-` with two more spaces. */
function yamlLines(value: unknown, indent: number, lines: string[]): void {
  const prefix = '  '.repeat(indent);
  const nested = (item: unknown): boolean => Array.isArray(item) || isObject(item);
  if (indent >= MAX_NESTING && nested(value)) {
    lines.push(`${prefix}${Array.isArray(value) ? '[...]' : '{...}'}`);
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (nested(item)) {
        lines.push(`${prefix}${key}:`);
        yamlLines(item, indent + 1, lines);
      } else {
        lines.push(`${prefix}${key}: ${pyStr(item)}`);
      }
    }
  } else if (Array.isArray(value)) {
    for (const item of value) {
      if (nested(item)) {
        lines.push(`${prefix}-`);
        yamlLines(item, indent + 1, lines);
      } else {
        lines.push(`${prefix}- ${pyStr(item)}`);
      }
    }
  } else {
    lines.push(`${prefix}${pyStr(value)}`);
  }
}

/**
 * The error block of generations and embeddings when `$ai_error` or `$ai_is_error` is truthy: ``, SEPARATOR, ``,
 * `ERROR:`, ``, details, ``. An object error (or a string holding a JSON object) is shown YAML-like, any other
 * error as str(), and a bare `$ai_is_error` as `An error occurred (no details available)`.
 */
function formatErrorSection(props: JsonObject): string[] {
  const error = own(props, '$ai_error');
  if (!truthy(error) && !truthy(own(props, '$ai_is_error'))) return [];
  const lines = ['', SEPARATOR, '', 'ERROR:', ''];
  if (truthy(error)) {
    let details: JsonObject | null = isObject(error) ? error : null;
    if (typeof error === 'string') {
      try {
        const parsed = JSON.parse(error) as unknown;
        if (isObject(parsed)) details = parsed;
      } catch {
        // Not JSON: shown as the string it is.
      }
    }
    if (details !== null && truthy(details)) yamlLines(details, 0, lines);
    else lines.push(pyStr(error));
  } else {
    lines.push('An error occurred (no details available)');
  }
  lines.push('');
  return lines;
}

/** Tools, input, output and error sections of a generation, each introduced by a separator. */
export function formatGenerationLines(event: JsonObject, options: TextReprOptions): TextLine[] {
  const props = asObject(own(event, 'properties'));
  const lines: TextLine[] = [];
  const tools = formatTools(own(props, '$ai_tools'), options);
  if (tools.length > 0) {
    lines.push(SEPARATOR);
    pushAll(lines, tools);
  }
  const input = formatInputMessages(own(props, '$ai_input'), options);
  if (input.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push(SEPARATOR);
    pushAll(lines, input);
  }
  const output = formatOutputMessages(own(props, '$ai_output'), own(props, '$ai_output_choices'), options);
  if (output.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push(SEPARATOR);
    pushAll(lines, output);
  }
  const error = formatErrorSection(props);
  if (error.length > 0) {
    if (lines.length > 0) lines.push('');
    pushAll(lines, error);
  }
  return lines;
}

/** Input section, then `OUTPUT:` / `Embedding vector generated` (the vector is never shown), then the error block. */
export function formatEmbeddingLines(event: JsonObject, options: TextReprOptions): TextLine[] {
  const props = asObject(own(event, 'properties'));
  const lines: TextLine[] = [];
  const input = formatInputMessages(own(props, '$ai_input'), options);
  if (input.length > 0) {
    lines.push(SEPARATOR);
    pushAll(lines, input);
    lines.push('');
  }
  lines.push(SEPARATOR, '', 'OUTPUT:', '', 'Embedding vector generated', '');
  const error = formatErrorSection(props);
  if (error.length > 0) {
    lines.push('');
    pushAll(lines, error);
  }
  return lines;
}

/**
 * The lines of one event, the formatter chosen by `name`: the requested event type at the top of a request, an
 * event's own `event` name in a trace's tree. `$ai_span` -> span, `$ai_embedding` -> embedding, anything else ->
 * generation.
 */
export function formatEventLines(event: JsonObject, options: TextReprOptions, name: unknown = own(event, 'event')): TextLine[] {
  if (name === '$ai_span') return formatSpanLines(event, options);
  if (name === '$ai_embedding') return formatEmbeddingLines(event, options);
  return formatGenerationLines(event, options);
}
