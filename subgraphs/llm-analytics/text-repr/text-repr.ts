/**
 * Text representation of LLM analytics events (PostHog's `text_repr`, notes section 3.5): `$ai_generation`,
 * `$ai_span`, `$ai_embedding` and `$ai_trace` rendered as plain text for people and language models. Pure: no I/O.
 *
 * Pipeline: validate -> render lines -> split embedded newlines -> line numbers -> `max_length` sampling -> join.
 * Lines stay apart until the single final join: a truncation marker is known by its length (TruncationMarker) and
 * encoded only if the text keeps its line, and no line's code points are counted inside a joined text.
 */
import { formatEventLines } from './event.formatter.js';
import { asObject, firstTruthy, has, isObject, own, truthy, type JsonObject } from './json.guards.js';
import { reduceLinesToMaxLength } from './length.sampling.js';
import { numberLines } from './line-numbers.js';
import { pyJsonDumps, pyStr, pyTypeName } from './python.format.js';
import { TextReprInputError } from './text-repr.errors.js';
import { lineLength, type TextLine } from './text-line.js';
import { parseTextReprOptions } from './text-repr.options.js';
import { formatTraceLines, treeOutputBudget } from './trace.formatter.js';

export { TextReprInputError } from './text-repr.errors.js';
export { parseTextReprOptions, type TextReprOptions } from './text-repr.options.js';

/** The event types the API accepts in `event_type`. */
export const TEXT_REPR_EVENT_TYPES = ['$ai_generation', '$ai_span', '$ai_embedding', '$ai_trace'] as const;
export type TextReprEventType = (typeof TEXT_REPR_EVENT_TYPES)[number];

/** The `metadata` of the API's response. */
export interface TextReprMetadata {
  event_type: TextReprEventType;
  /** `data.id`, as a string. */
  event_id: string | null;
  /** Traces: `trace.properties.$ai_trace_id`; events: `properties.$ai_trace_id` or `data.trace_id`. */
  trace_id: string | null;
  rendering: 'detailed';
  /** Length of `text` in Unicode code points (Python's `len`). */
  char_count: number;
  /** True exactly when `max_length` reduction dropped lines or cut the text (not for per-block truncation). */
  truncated: boolean;
}

function isEventType(value: unknown): value is TextReprEventType {
  return (TEXT_REPR_EVENT_TYPES as readonly unknown[]).includes(value);
}

function validateEventType(eventType: unknown): TextReprEventType {
  if (eventType === undefined) throw new TextReprInputError('This field is required.', 'event_type', 'required');
  if (eventType === null) throw new TextReprInputError('This field may not be null.', 'event_type', 'null');
  if (!isEventType(eventType)) throw new TextReprInputError(`"${pyStr(eventType)}" is not a valid choice.`, 'event_type', 'invalid_choice');
  return eventType;
}

function validateData(data: unknown): JsonObject {
  if (data === undefined) throw new TextReprInputError('This field is required.', 'data', 'required');
  if (data === null) throw new TextReprInputError('This field may not be null.', 'data', 'null');
  if (!isObject(data)) throw new TextReprInputError(`Expected a dictionary of items but got type "${pyTypeName(data)}".`, 'data', 'not_a_dict');
  return data;
}

/** Ids as strings: strings as they are, numbers stringified, other JSON as compact JSON, absent as null. */
function idString(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return pyJsonDumps(value);
}

/**
 * Validates the request (event type, then `data`, then options, then the content checks of section 3.5 steps 2-3,
 * the latter with attr null) and renders the text. `eventType` picks the layout, as the API document says
 * (PostHog picks it from `data.event`, so that a span sent without one renders as a generation there; here a
 * span is a span). Never throws anything but TextReprInputError for JSON input.
 */
export function renderTextRepr(eventType: unknown, data: unknown, options?: unknown): { text: string; metadata: TextReprMetadata } {
  const type = validateEventType(eventType);
  const payload = validateData(data);
  const parsedOptions = parseTextReprOptions(options);

  let lines: TextLine[];
  let treeCut = false;
  let traceId: unknown;
  if (type === '$ai_trace') {
    const trace = own(payload, 'trace');
    const hierarchy = own(payload, 'hierarchy');
    if (!truthy(trace) || !Array.isArray(hierarchy)) {
      throw new TextReprInputError("Trace events require 'trace' object and 'hierarchy' array in data field");
    }
    const traceProps = asObject(own(asObject(trace), 'properties'));
    if (!truthy(own(traceProps, '$ai_trace_id')) && !truthy(own(asObject(trace), 'id'))) {
      throw new TextReprInputError('Trace events require an ID (trace.id or trace.properties.$ai_trace_id)');
    }
    const rendered = formatTraceLines(trace, hierarchy, parsedOptions, treeOutputBudget(parsedOptions.max_length));
    lines = rendered.lines;
    treeCut = rendered.cut;
    traceId = own(traceProps, '$ai_trace_id');
  } else {
    if (!has(payload, 'properties')) throw new TextReprInputError(`${type} events require 'properties' object in data field`);
    if (!truthy(own(payload, 'id'))) throw new TextReprInputError(`${type} events require an 'id' field`);
    lines = formatEventLines(payload, parsedOptions, type);
    traceId = firstTruthy(own(asObject(own(payload, 'properties')), '$ai_trace_id'), own(payload, 'trace_id'));
  }

  const single = splitLines(lines);
  if (parsedOptions.include_line_numbers) numberLines(single);
  const reduced = reduceLinesToMaxLength(single, single.map(lineLength), parsedOptions.max_length);
  return {
    text: reduced.text,
    metadata: {
      event_type: type,
      event_id: idString(own(payload, 'id')),
      trace_id: idString(traceId),
      rendering: 'detailed',
      char_count: reduced.length,
      truncated: reduced.reduced || treeCut,
    },
  };
}

/** The lines of the text the formatters' lines join into (some of their entries hold several lines). */
function splitLines(lines: readonly TextLine[]): TextLine[] {
  const out: TextLine[] = [];
  for (const line of lines) {
    if (typeof line !== 'string' || !line.includes('\n')) out.push(line);
    else for (const part of line.split('\n')) out.push(part);
  }
  return out;
}
