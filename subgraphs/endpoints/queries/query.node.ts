import { ValidationError } from '../../shared/errors.js';
import { exceedsDepth, jsonSize } from '../../shared/validation.js';
import { HogQLError } from '../hogql/hogql.errors.js';
import { placeholdersOf, type VariableValue } from '../hogql/compile/hogql.compiler.js';
import { parseHogQLSelect } from '../hogql/parse/hogql.parser.js';
import type { HogQLNode } from '../hogql/hogql.types.js';
import { trendsToHogQL } from '../hogql/trends/trends.query.js';

/** The query kinds PostHog's endpoints take; the insight kinds other than trends have no compiler here. */
const INSIGHT_KINDS = ['FunnelsQuery', 'RetentionQuery', 'PathsQuery', 'StickinessQuery', 'LifecycleQuery'];

/** Largest query node stored, in bytes of JSON. */
const MAX_QUERY_BYTES = 128 * 1024;

export type VariableType = NonNullable<VariableValue['type']>;

/** A variable a HogQL query declares: its code name, type and default value. */
export interface DeclaredVariable {
  code_name: string;
  type: VariableType;
  /** The default value; undefined when the caller must give one. */
  value?: unknown;
}

/** A query node read and parsed: what a run compiles, and what versions and OpenAPI documents describe. */
export interface PreparedQuery {
  kind: 'HogQLQuery' | 'TrendsQuery';
  node: Record<string, unknown>;
  ast: HogQLNode;
  variables: DeclaredVariable[];
}

/** Prepared queries by their JSON: parsing takes milliseconds, and every run of a version reads the same node. */
const prepared = new Map<string, Promise<PreparedQuery>>();
const MAX_PREPARED = 1_000;

/**
 * Reads a query node (400 naming what is wrong), parsing HogQL with PostHog's parser in the turn of
 * `environmentId`, whose query it is. Nodes seen lately are answered from memory (the compiler never
 * changes what it is given).
 */
export function prepareQuery(environmentId: number, node: unknown): Promise<PreparedQuery> {
  if (node === null || node === undefined || typeof node !== 'object') return read(environmentId, node);
  const key = JSON.stringify(node);
  const known = prepared.get(key);
  if (known) {
    // Most recently used last: the first entry is the one to drop.
    prepared.delete(key);
    prepared.set(key, known);
    return known;
  }
  const reading = read(environmentId, node);
  prepared.set(key, reading);
  if (prepared.size > MAX_PREPARED) prepared.delete(prepared.keys().next().value!);
  reading.catch(() => prepared.delete(key));
  return reading;
}

async function read(environmentId: number, node: unknown): Promise<PreparedQuery> {
  if (node === null || node === undefined) throw new ValidationError('Must specify query', 'query', 'required');
  if (typeof node !== 'object' || Array.isArray(node)) throw new ValidationError('Query must be an object with a `kind`.', 'query');
  if (exceedsDepth(node) || jsonSize(node) > MAX_QUERY_BYTES) throw new ValidationError(`Query must be at most ${MAX_QUERY_BYTES} bytes of JSON.`, 'query');
  const query = node as Record<string, unknown>;
  const kind = query.kind;
  if (kind === 'HogQLQuery') return prepareHogQL(environmentId, query);
  if (kind === 'TrendsQuery') return { kind, node: query, ast: await trendsToHogQL(query), variables: [] };
  if (typeof kind === 'string' && INSIGHT_KINDS.includes(kind)) {
    throw new ValidationError(`Query kind ${kind} is not supported by endpoints here: use HogQLQuery or TrendsQuery.`, 'query', 'unsupported_query_kind');
  }
  throw new ValidationError(
    `Invalid query kind${typeof kind === 'string' ? ` ${kind}` : ''}: expected HogQLQuery or TrendsQuery.`,
    'query',
    'invalid_query_kind',
  );
}

async function prepareHogQL(environmentId: number, node: Record<string, unknown>): Promise<PreparedQuery> {
  if (typeof node.query !== 'string' || node.query.trim() === '') throw new HogQLError('Invalid HogQL query: a HogQLQuery needs `query`, the HogQL text.');
  const ast = await parseHogQLSelect(environmentId, node.query);
  const declared = declaredVariables(node.variables);
  const used = placeholdersOf(ast);
  const known = new Map(declared.map((variable) => [variable.code_name, variable]));
  // A placeholder the query uses without declaring it is a string variable with no default (the caller gives it).
  for (const name of used) if (!known.has(name)) known.set(name, { code_name: name, type: 'String' });
  return { kind: 'HogQLQuery', node, ast, variables: [...known.values()] };
}

/**
 * PostHog's `variables` of a HogQLQuery: `{<id>: {code_name, value, type?}}` (the id is the
 * insight variable's; a list of such objects is taken too). The type comes from `type` when
 * given, else from the default value.
 */
function declaredVariables(raw: unknown): DeclaredVariable[] {
  if (raw === null || raw === undefined) return [];
  if (typeof raw !== 'object') throw new ValidationError('`variables` of a HogQLQuery must be an object.', 'query');
  const entries = Array.isArray(raw) ? raw : Object.values(raw as object);
  return entries.map((entry) => {
    const item = entry as { code_name?: unknown; value?: unknown; type?: unknown };
    if (!item || typeof item.code_name !== 'string' || !/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/.test(item.code_name)) {
      throw new ValidationError('Each variable of a HogQLQuery needs a `code_name` (letters, digits and `_`).', 'query');
    }
    return { code_name: item.code_name, type: variableType(item.type, item.value), ...(item.value === undefined || item.value === null ? {} : { value: item.value }) };
  });
}

const TYPES: VariableType[] = ['String', 'Number', 'Boolean', 'List', 'Date'];

function variableType(declared: unknown, value: unknown): VariableType {
  if (typeof declared === 'string') {
    const found = TYPES.find((type) => type.toLowerCase() === declared.toLowerCase());
    if (!found) throw new ValidationError(`Unknown variable type ${declared}: expected ${TYPES.join(', ')}.`, 'query');
    return found;
  }
  if (typeof value === 'number') return 'Number';
  if (typeof value === 'boolean') return 'Boolean';
  if (Array.isArray(value)) return 'List';
  return 'String';
}
