import createHogQLParser, { type HogQLParser } from '@posthog/hogql-parser';
import { assertDepth, isNode } from './hogql.ast.js';
import { HogQLError } from './hogql.errors.js';
import { MAX_QUERY_BYTES } from './hogql.limits.js';
import type { HogQLNode } from './hogql.types.js';

interface ParseFailure {
  error: true;
  message: string;
  start?: { offset?: number };
}

// One WebAssembly instance serves every parse; created on first use.
let shared: Promise<HogQLParser> | null = null;

function parser(): Promise<HogQLParser> {
  shared ??= createHogQLParser().catch((error: unknown) => {
    shared = null;
    throw error;
  });
  return shared;
}

/**
 * Parses a HogQL SELECT (or UNION) with PostHog's parser, positions included. Refuses blank text,
 * text over MAX_QUERY_BYTES, syntax errors (with PostHog's wording and the position) and trees
 * nested deeper than MAX_DEPTH.
 */
export async function parseHogQLSelect(query: string): Promise<HogQLNode> {
  if (typeof query !== 'string' || query.trim() === '') throw new HogQLError('Invalid HogQL query: the query is empty.');
  if (Buffer.byteLength(query, 'utf8') > MAX_QUERY_BYTES) {
    throw new HogQLError(`Invalid HogQL query: the query is longer than ${MAX_QUERY_BYTES} bytes.`);
  }
  const answer = JSON.parse(await parseText(query)) as unknown;
  if (isFailure(answer)) throw new HogQLError(`Invalid HogQL query: ${answer.message}${positionOf(query, answer)}`);
  if (!isNode(answer)) throw new HogQLError('Invalid HogQL query: the parser answered no query.');
  assertDepth(answer);
  return answer;
}

async function parseText(query: string): Promise<string> {
  const instance = await parser();
  try {
    return instance.parseSelect(query, false);
  } catch {
    // The WebAssembly parser runs out of stack on very long expression chains, and its instance is
    // unusable afterwards: drop it, so that the next parse gets a fresh one.
    shared = null;
    throw new HogQLError('Invalid HogQL query: the query is too complex to parse.');
  }
}

function isFailure(value: unknown): value is ParseFailure {
  return typeof value === 'object' && value !== null && (value as ParseFailure).error === true;
}

/**
 * " (line L, column C)", both from 1. The parser's own line and column are not filled in; its
 * offset counts code points.
 */
function positionOf(query: string, failure: ParseFailure): string {
  const offset = failure.start?.offset;
  if (typeof offset !== 'number' || offset < 0) return '';
  const before = Array.from(query).slice(0, offset);
  const line = before.filter((char) => char === '\n').length + 1;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return ` (line ${line}, column ${column})`;
}
