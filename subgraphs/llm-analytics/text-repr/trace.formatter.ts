/** `$ai_trace` layout and the trace tree (section 3.5.9). */
import { utf8Base64 } from './code-points.js';
import { truncateContent } from './content.truncation.js';
import { formatEventLines } from './event.formatter.js';
import { asObject, firstTruthy, getOr, has, isObject, own, pushAll, truthy, type JsonObject } from './json.guards.js';
import { formatInputMessages, formatOutputMessages } from './messages.formatter.js';
import { pyFixed, pyJsonDumps, pyStr } from './python.format.js';
import { SEPARATOR, TITLE_RULE } from './text-repr.constants.js';
import type { TextReprOptions } from './text-repr.options.js';
import type { TextLine } from './text-line.js';

const EXPANDABLE_TAGS: Record<string, string> = { $ai_generation: '[GEN]', $ai_span: '[SPAN]', $ai_embedding: '[EMBED]' };

/**
 * Characters after which the tree stops drawing (a `[... trace tree cut ...]` line follows and the result counts
 * as truncated). A tree can amplify its input: every line repeats its ancestors' 3-character prefixes, so a chain
 * 100,000 levels deep would draw billions of characters. The budget sits far above what `max_length` keeps
 * (sampling would drop the excess anyway) and far below V8's string limit.
 */
export function treeOutputBudget(maxLength: number): number {
  return Math.min(Math.max(32_000_000, 2 * maxLength), 256_000_000);
}

export interface TraceLines {
  lines: TextLine[];
  /** True when the tree hit the output budget. */
  cut: boolean;
}

/** Objects of a node list; other entries cannot be drawn (PostHog crashes on them). */
function objectNodes(nodes: unknown): JsonObject[] {
  return Array.isArray(nodes) ? nodes.filter(isObject) : [];
}

/** The node's event: its `event` object, or the node itself (a node without an `event` object is the event). */
function nodeEvent(node: JsonObject): JsonObject {
  const event = own(node, 'event');
  return isObject(event) ? event : node;
}

/** A latency or cost to print: Python formats numbers (and bools, which are ints); anything else is left out. */
function numeric(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return null;
}

/** One-line summary: `my-generation (0.45s, $0.0023, gpt-4, ERROR)`, `my-span (1.20s)`, or the event name. */
export function eventSummary(event: JsonObject): string {
  const type = getOr(event, 'event', 'unknown');
  const props = asObject(own(event, 'properties'));
  const parts: string[] = [];
  const latency = numeric(own(props, '$ai_latency'));
  let name: unknown;
  if (type === '$ai_generation' || type === '$ai_embedding') {
    name = firstTruthy(own(props, '$ai_span_name'), own(props, '$ai_model'), type === '$ai_generation' ? 'generation' : 'embedding');
    const cost = numeric(own(props, '$ai_total_cost_usd'));
    if (latency !== null) parts.push(`${pyFixed(latency, 2)}s`);
    if (cost !== null) parts.push(`$${pyFixed(cost, 4)}`);
    if (truthy(own(props, '$ai_model'))) parts.push(pyStr(own(props, '$ai_model')));
    if (truthy(own(props, '$ai_is_error')) || truthy(own(props, '$ai_error'))) parts.push('ERROR');
  } else if (type === '$ai_span') {
    name = getOr(props, '$ai_span_name', 'span');
    if (latency !== null) parts.push(`${pyFixed(latency, 2)}s`);
    if (truthy(own(props, '$ai_is_error'))) parts.push('ERROR');
  } else {
    return pyStr(type);
  }
  const label = pyStr(name);
  return parts.length > 0 ? `${label} (${parts.join(', ')})` : label;
}

interface Level {
  nodes: JsonObject[];
  index: number;
  prefix: string;
  depth: number;
}

/**
 * The tree lines. Iterative (an explicit stack of levels) so that nesting depth never touches the call stack.
 * `max_depth` is honoured (PostHog ignores it and stops at a fixed depth 10): a node at depth d (roots are depth 0)
 * is drawn iff d < max_depth; a level that may not be drawn is replaced by one `[... max depth reached]` line.
 * Without max_depth there is no depth limit; the output budget bounds the work instead.
 */
function renderTree(roots: JsonObject[], options: TextReprOptions, budget: number): TraceLines {
  const lines: string[] = [];
  const state = { size: 0, cut: false };
  const emit = (line: string): boolean => {
    if (state.size > budget) {
      state.cut = true;
      return false;
    }
    lines.push(line);
    state.size += line.length + 1;
    return true;
  };
  const stack: Level[] = [];
  const open = (nodes: JsonObject[], prefix: string, depth: number): void => {
    if (options.max_depth !== null && depth >= options.max_depth) emit(`${prefix}  [... max depth reached]`);
    else stack.push({ nodes, index: 0, prefix, depth });
  };
  open(roots, '', 0);

  while (stack.length > 0 && !state.cut) {
    const level = stack[stack.length - 1]!;
    if (level.index >= level.nodes.length) {
      stack.pop();
      continue;
    }
    const node = level.nodes[level.index]!;
    const isLast = level.index === level.nodes.length - 1;
    level.index++;
    const connector = isLast ? '└─ ' : '├─ ';
    const childPrefix = isLast ? '   ' : '│  ';
    renderNode(nodeEvent(node), level.prefix + connector, level.prefix + childPrefix, options, emit);
    const children = objectNodes(own(node, 'children'));
    if (children.length > 0) open(children, level.prefix + childPrefix, level.depth + 1);
  }
  if (state.cut) lines.push('[... trace tree cut: output too large]');
  return { lines, cut: state.cut };
}

/** One node: collapsed summary, event link, expandable marker with the base64 rendering, or the rendering inline. */
function renderNode(event: JsonObject, head: string, body: string, options: TextReprOptions, emit: (line: string) => boolean): void {
  const type = getOr(event, 'event', 'unknown');
  const expandableTag = typeof type === 'string' && Object.hasOwn(EXPANDABLE_TAGS, type) ? EXPANDABLE_TAGS[type] : undefined;
  const tag = expandableTag ?? '[EVENT]';
  const summary = eventSummary(event);
  if (options.collapsed) {
    emit(`${head}${tag} ${summary}`);
    return;
  }
  const id = pyStr(getOr(event, 'id', 'unknown'));
  if (expandableTag === undefined) {
    emit(options.include_markers ? `${head}<<<EVENT_LINK|${id}|${tag}>>> ${summary}` : `${head}${tag} ${summary}`);
    return;
  }
  // Line numbers apply to the whole text only; the formatters never number the lines of a nested rendering.
  const content = formatEventLines(event, options).join('\n');
  if (options.include_markers) {
    emit(`${head}<<<GEN_EXPANDABLE|${id}|${tag} ${summary}|${utf8Base64(content)}>>>`);
    return;
  }
  if (!emit(`${head}[+] ${tag} ${summary}`)) return;
  const indent = `${body}    `;
  for (const line of content.split('\n')) {
    if (!emit(indent + line)) return;
  }
}

/** Trace-level input or output state (shown only without a tree): messages reuse INPUT/OUTPUT, others a label. */
function formatTraceState(state: unknown, label: 'TRACE INPUT' | 'TRACE OUTPUT', options: TextReprOptions): TextLine[] {
  if (!truthy(state)) return [];
  if (Array.isArray(state)) {
    const first: unknown = state[0];
    if (isObject(first) && (has(first, 'role') || has(first, 'content'))) {
      return label === 'TRACE INPUT' ? formatInputMessages(state, options) : formatOutputMessages(null, state, options);
    }
  }
  const lines: TextLine[] = ['', `${label}:`, ''];
  if (typeof state === 'string') pushAll(lines, truncateContent(state, options));
  else if (Array.isArray(state) || isObject(state)) pushAll(lines, truncateContent(pyJsonDumps(state, 2), options));
  else lines.push(pyStr(state));
  return lines;
}

/**
 * Title and rule, trace error, then either `TRACE HIERARCHY:` with the tree, or (no drawable nodes, or
 * `include_hierarchy: false`) the trace-level input and output states.
 */
export function formatTraceLines(trace: unknown, hierarchy: readonly unknown[], options: TextReprOptions, budget: number): TraceLines {
  const traceObject = asObject(trace);
  const props = asObject(own(traceObject, 'properties'));
  const title = firstTruthy(own(props, '$ai_span_name'), own(traceObject, 'traceName'), own(traceObject, 'trace_name'), 'TRACE');
  const lines: TextLine[] = [pyStr(title).toUpperCase(), TITLE_RULE];

  const error = own(props, '$ai_error');
  if (truthy(error)) {
    lines.push('', SEPARATOR, '', 'TRACE ERROR:', '', typeof error === 'string' ? error : pyJsonDumps(error, 2));
  }

  const roots = options.include_hierarchy ? objectNodes(hierarchy) : [];
  if (roots.length === 0) {
    const states: [unknown, 'TRACE INPUT' | 'TRACE OUTPUT'][] = [
      [firstTruthy(own(props, '$ai_input_state'), own(traceObject, 'inputState'), own(traceObject, 'input_state')), 'TRACE INPUT'],
      [firstTruthy(own(props, '$ai_output_state'), own(traceObject, 'outputState'), own(traceObject, 'output_state')), 'TRACE OUTPUT'],
    ];
    for (const [state, label] of states) {
      const stateLines = formatTraceState(state, label, options);
      if (stateLines.length === 0) continue;
      lines.push('', SEPARATOR);
      pushAll(lines, stateLines);
    }
    return { lines, cut: false };
  }

  lines.push('', SEPARATOR, '', 'TRACE HIERARCHY:', '');
  const tree = renderTree(roots, options, budget);
  pushAll(lines, tree.lines);
  return { lines, cut: tree.cut };
}
