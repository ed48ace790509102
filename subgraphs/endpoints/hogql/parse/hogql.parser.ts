import { assertDepth, isNode } from './hogql.ast.js';
import { HogQLError, QueryTooComplexError } from '../hogql.errors.js';
import { MAX_QUERY_BYTES } from '../hogql.limits.js';
import { parseInWorker } from './hogql.parse-pool.js';
import type { HogQLNode } from '../hogql.types.js';

interface ParseFailure {
  error: true;
  message: string;
  start?: { offset?: number };
}

/**
 * Parses a HogQL SELECT (or UNION) with PostHog's parser, positions included. Refuses blank text,
 * text over MAX_QUERY_BYTES, syntax errors (with PostHog's wording and the position), trees nested
 * deeper than MAX_DEPTH, and texts the parser cannot finish within its stack or PARSE_BUDGET_MS
 * (QueryTooComplexError). The parse itself runs in a worker thread, never on the event loop, in
 * its turn among `environmentId`'s parses (each environment has its share of the workers).
 */
export async function parseHogQLSelect(environmentId: number, query: string): Promise<HogQLNode> {
  if (typeof query !== 'string' || query.trim() === '') throw new HogQLError('Invalid HogQL query: the query is empty.');
  if (Buffer.byteLength(query, 'utf8') > MAX_QUERY_BYTES) {
    throw new HogQLError(`Invalid HogQL query: the query is longer than ${MAX_QUERY_BYTES} bytes.`);
  }
  const answer = JSON.parse(await parseText(environmentId, query)) as unknown;
  if (isFailure(answer)) throw new HogQLError(`Invalid HogQL query: ${answer.message}${positionOf(query, answer)}`);
  if (!isNode(answer)) throw new HogQLError('Invalid HogQL query: the parser answered no query.');
  assertDepth(answer);
  return answer;
}

async function parseText(environmentId: number, query: string): Promise<string> {
  const outcome = await parseInWorker(environmentId, query);
  if ('tooComplex' in outcome) throw new QueryTooComplexError();
  return outcome.json;
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
