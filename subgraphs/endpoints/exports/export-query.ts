import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { isKind, walk } from '../hogql/hogql.ast.js';
import { AGGREGATE_FUNCTIONS } from '../hogql/aggregate.functions.js';
import { alias, and, call, compare, constant, field, or, orderBy, tuple } from '../hogql/hogql.builders.js';
import { compileHogQL } from '../hogql/hogql.compiler.js';
import { HogQLError } from '../hogql/hogql.errors.js';
import { parseHogQLSelect } from '../hogql/hogql.parser.js';
import type { HogQLNode, HogQLType } from '../hogql/hogql.types.js';
import { propertiesCondition } from '../hogql/trends.properties.js';
import { QueryExecutor } from '../queries/query.executor.js';

/** The fields a batch export's query may read (PostHog's list). */
const READABLE = ['team_id', 'timestamp', 'event', 'distinct_id', 'uuid', 'created_at', 'elements_chain', 'person_id', 'properties', 'person_properties', 'person'];

/** Columns added to every page for its keyset; never exported. */
const KEYSET_TIME = '__export_inserted_at';
const KEYSET_ID = '__export_uuid';

/** One exported field as PostHog's `schema` shows it: the HogQL text and the name it is exported under. */
export interface ExportField {
  expression: string;
  alias: string;
}

/** A checked export query: its AST, and what PostHog's `schema` shows of it. */
export interface ExportQuery {
  ast: HogQLNode;
  fields: ExportField[];
  hogql_query: string;
}

/** What a run reads besides the query: the interval, the event names, the property filters. */
export interface ExportWindow {
  teamId: number;
  /** Ingestion time bounds: `[start, end)`; no start means from the beginning. */
  start: Date | null;
  end: Date;
  includeEvents?: string[] | null;
  excludeEvents?: string[] | null;
  filters?: unknown;
}

/** Where the last page ended: rows come in (ingestion time, uuid) order. */
export interface ExportKeyset {
  inserted_at: string;
  uuid: string;
}

export interface ExportPage {
  columns: { name: string; type: HogQLType }[];
  rows: unknown[][];
  /** Null when the page held no rows. */
  last: ExportKeyset | null;
}

/**
 * Checks a batch export's `SELECT … FROM events` as PostHog does (no unions, CTEs, subqueries or
 * joins; only the fields a batch export reads) and says what it exports. 400s name `hogql_query`.
 */
export async function checkExportQuery(text: string): Promise<ExportQuery> {
  const ast = await asExportError(() => parseHogQLSelect(text), 'hogql_query');
  if (isKind(ast, 'SelectSetQuery')) throw new ValidationError('UNIONs are not supported', 'hogql_query');
  if (!isKind(ast, 'SelectQuery')) throw new ValidationError('Unsupported HogQL query', 'hogql_query');
  if (ast.ctes) throw new ValidationError('CTEs are not supported', 'hogql_query');
  const from = ast.select_from as HogQLNode | null;
  if (!from) throw new ValidationError('Query must SELECT FROM events', 'hogql_query');
  if (isKind(from.table, 'SelectQuery') || isKind(from.table, 'SelectSetQuery')) throw new ValidationError('Subqueries are not supported', 'hogql_query');
  if (!isKind(from.table, 'Field') || (from.table as HogQLNode).chain?.toString() !== 'events') throw new ValidationError('Query must only SELECT FROM events', 'hogql_query');
  if (from.next_join) throw new ValidationError('JOINs are not supported', 'hogql_query');
  for (const clause of ['group_by', 'having', 'order_by', 'limit', 'offset', 'limit_by', 'distinct', 'window_exprs', 'array_join_list', 'prewhere', 'sample']) {
    const value = ast[clause];
    if (value !== null && value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)) {
      throw new ValidationError(`Unsupported HogQL query: ${clause.replace(/_/g, ' ').toUpperCase()} has no place in a batch export`, 'hogql_query');
    }
  }
  const select = ast.select as HogQLNode[];
  if (select.some((expr) => [...walk(expr)].some((node) => isKind(node, 'SelectQuery') || isKind(node, 'SelectSetQuery')))) {
    throw new ValidationError('Subqueries in SELECT expressions are not supported', 'hogql_query');
  }
  if (select.some((expr) => [...walk(expr)].some((node) => isKind(node, 'Call') && Object.hasOwn(AGGREGATE_FUNCTIONS, String(node.name))))) {
    throw new ValidationError('Aggregations are not supported: a batch export exports events one row each', 'hogql_query');
  }
  checkFields(ast, select);
  const query = { ast, fields: select.map((expr) => exportField(text, expr)), hogql_query: text.trim() };
  // Compiling (nothing runs) refuses what the compiler does not know: an unknown function, a bad cast.
  await asExportError(async () => exportColumns(query), 'hogql_query');
  return query;
}

/** Checks property filters as runs will apply them; 400s name `filters`. */
export function checkExportFilters(filters: unknown): void {
  asFilterError(() => propertiesCondition(filters ?? null));
}

function checkFields(ast: HogQLNode, select: HogQLNode[]): void {
  const aliases = new Set(select.filter((expr) => isKind(expr, 'Alias')).map((expr) => String(expr.alias)));
  const unreadable = new Set<string>();
  for (const node of walk([select, ast.where])) {
    if (!isKind(node, 'Field')) continue;
    const name = String((node.chain as unknown[])[0]);
    if (!READABLE.includes(name) && !aliases.has(name)) unreadable.add(name);
  }
  if (unreadable.size > 0) {
    throw new ValidationError(`Batch exports cannot read these fields: ${[...unreadable].sort().join(', ')}. Supported fields are: ${READABLE.filter((name) => name !== 'person').join(', ')}.`, 'hogql_query');
  }
}

/** The text of a select expression (its alias apart), and the name it is exported under. */
function exportField(text: string, expr: HogQLNode): ExportField {
  const inner = isKind(expr, 'Alias') ? (expr.expr as HogQLNode) : expr;
  const expression = sourceOf(text, inner);
  return { expression, alias: isKind(expr, 'Alias') ? String(expr.alias) : isKind(inner, 'Field') ? String((inner.chain as unknown[]).at(-1)) : expression };
}

/** The parser's offsets count code points. */
function sourceOf(text: string, node: HogQLNode): string {
  const start = (node.start as { offset?: number } | undefined)?.offset;
  const end = (node.end as { offset?: number } | undefined)?.offset;
  if (typeof start !== 'number' || typeof end !== 'number') return String(node.node);
  return Array.from(text).slice(start, end).join('');
}

/**
 * Reads one page of an export: the query's columns for the events of the window after `after`,
 * in (ingestion time, uuid) order, at most `limit` rows. It runs as every HogQL query runs (the
 * team's rows only, read-only, the reader role, a statement timeout).
 */
export async function readExportPage(em: EntityManager, log: Logger, query: ExportQuery, window: ExportWindow, after: ExportKeyset | null, limit: number, timeoutMs: number): Promise<ExportPage> {
  const ast = pageQuery(query, window, after, limit);
  const compiled = compileHogQL(ast, { variables: {}, limit, timezone: 'UTC' });
  const { rows } = await new QueryExecutor(em, log).run(window.teamId, compiled, timeoutMs);
  const width = compiled.columns.length - 2;
  const lastRow = rows.at(-1);
  return {
    columns: compiled.columns.slice(0, width),
    rows: rows.map((row) => row.slice(0, width)),
    last: lastRow ? { inserted_at: String(lastRow[width]), uuid: String(lastRow[width + 1]) } : null,
  };
}

function pageQuery(query: ExportQuery, window: ExportWindow, after: ExportKeyset | null, limit: number): HogQLNode {
  // Every column is named as the schema names it, whatever the fields beneath are rewritten to.
  const named = { ...query.ast, select: (query.ast.select as HogQLNode[]).map((expr, index) => (isKind(expr, 'Alias') ? expr : alias(query.fields[index]!.alias, expr))) };
  const ast = rewriteFields(structuredClone(named), window.teamId);
  // The order of the events index (environment, ingestion time, uuid): a page is read off the
  // index in order and stops at its limit, joins included, however many events the window holds.
  const insertedAt = field('created_at');
  const id = field('uuid');
  const at = (iso: string) => call('toDateTime', [constant(iso)]);
  const conditions: (HogQLNode | null)[] = [
    (ast.where as HogQLNode | null) ?? null,
    window.start ? compare('>=', insertedAt, at(window.start.toISOString())) : null,
    compare('<', insertedAt, at(window.end.toISOString())),
    after ? compare('>=', insertedAt, at(after.inserted_at)) : null,
    after ? or([compare('>', insertedAt, at(after.inserted_at)), compare('>', id, call('toUUID', [constant(after.uuid)]))]) : null,
    window.includeEvents?.length ? compare('in', field('event'), tuple(window.includeEvents.map(constant))) : null,
    window.excludeEvents?.length ? compare('not in', field('event'), tuple(window.excludeEvents.map(constant))) : null,
    asFilterError(() => propertiesCondition(window.filters ?? null)),
  ];
  return {
    ...ast,
    select: [...(ast.select as HogQLNode[]), alias(KEYSET_TIME, insertedAt), alias(KEYSET_ID, call('toString', [id]))],
    where: and(conditions.filter((condition): condition is HogQLNode => condition !== null)),
    order_by: [orderBy(insertedAt), orderBy(id)],
    limit: constant(limit),
  };
}

/** PostHog's event fields this platform keeps elsewhere: the person's properties, the elements chain, the team. */
function rewriteFields(ast: HogQLNode, teamId: number): HogQLNode {
  const replace = (node: HogQLNode): HogQLNode | null => {
    if (!isKind(node, 'Field')) return null;
    const [head, ...rest] = node.chain as string[];
    if (head === 'person_properties') return field('person', 'properties', ...rest);
    if (head === 'elements_chain' && rest.length === 0) return call('coalesce', [field('properties', '$elements_chain'), constant('')]);
    if (head === 'team_id' && rest.length === 0) return constant(teamId);
    return null;
  };
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== 'object' || value === null) return value;
    const node = value as HogQLNode;
    const replaced = typeof node.node === 'string' ? replace(node) : null;
    if (replaced) return replaced;
    return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, key === 'start' || key === 'end' ? item : visit(item)]));
  };
  return visit(ast) as HogQLNode;
}

async function asExportError<T>(work: () => Promise<T>, attr: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HogQLError) throw new ValidationError(error.message, attr);
    throw error;
  }
}

function asFilterError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof HogQLError) throw new ValidationError(error.message, 'filters');
    throw error;
  }
}

/** The columns a query exports, typed (compiled over an empty window; nothing runs). */
export function exportColumns(query: ExportQuery): { name: string; type: HogQLType }[] {
  const ast = pageQuery(query, { teamId: 0, start: null, end: new Date(0) }, null, 1);
  const { columns } = compileHogQL(ast, { variables: {}, limit: 1, timezone: 'UTC' });
  return columns.slice(0, columns.length - 2);
}
