import type { EventKeyset, EventTime } from '../../ingestion/facade.js';
import { ValidationError } from '../../shared/errors.js';
import { isKind, walk } from '../hogql/parse/hogql.ast.js';
import { AGGREGATE_FUNCTIONS } from '../hogql/functions/aggregate.functions.js';
import { alias, and, call, compare, constant, field, or, orderBy, tuple } from '../hogql/parse/hogql.builders.js';
import { compileHogQL } from '../hogql/compile/hogql.compiler.js';
import { HogQLError } from '../hogql/hogql.errors.js';
import { parseHogQLSelect } from '../hogql/parse/hogql.parser.js';
import type { CompiledQuery, CompileOptions, HogQLNode, HogQLType } from '../hogql/hogql.types.js';
import { propertiesCondition } from '../hogql/trends/trends.properties.js';

/** The fields a batch export's query may read (PostHog's list, and the view's `_inserted_at`). */
const READABLE = ['team_id', 'timestamp', 'event', 'distinct_id', 'uuid', 'created_at', '_inserted_at', 'elements_chain', 'person_id', 'properties', 'person_properties', 'person'];

/** Columns added to every page for its keyset; never exported. */
const KEYSET_TIME = '__export_time';
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

/**
 * The events' column an interval selects by: `created_at`, when the event was ingested (a
 * scheduled run's, so that late and imported events are exported too), or `timestamp`, when it
 * happened (a backfill's, as PostHog's `events_batch_export_backfill` view selects).
 */
export type ExportTime = EventTime;

/** What a run reads besides the query: the interval, the event names, the property filters. */
export interface ExportWindow {
  teamId: number;
  /** What `[start, end)` bounds and the rows are ordered by; a query's `_inserted_at` reads it too. */
  by: ExportTime;
  /** Bounds of `by`: `[start, end)`; no start means from the beginning. */
  start: Date | null;
  end: Date;
  includeEvents?: string[] | null;
  excludeEvents?: string[] | null;
  filters?: unknown;
}

/** A place in an export's order: rows come in (the window's `by`, uuid) order. */
export type ExportKeyset = EventKeyset;

/** The keys a page reads between: after `after` (none: from the window's start), up to `bound` included (none: to its end). */
export interface PageRange {
  after: ExportKeyset | null;
  bound: ExportKeyset | null;
  /**
   * The event times of the range's events, where known: a condition on the column the events
   * store is sorted by, so that ClickHouse reads the range's days alone.
   */
  timestamps?: { from: string; to: string };
}

export interface ExportPage {
  columns: { name: string; type: HogQLType }[];
  rows: unknown[][];
  /**
   * Where the next page starts after: the page's last row when it ended early, else its bound
   * (filters may have left fewer rows than the range held, or none); null when it had neither.
   */
  last: ExportKeyset | null;
  /** Whether rows may follow `last`: the page ended early (the row limit, the result byte cap), or had a bound. */
  more: boolean;
}

/**
 * A page of rows read over a range up to `bound`, the keyset in each row's last two columns, of
 * which `exported` keeps those the page exports. Rows that arrived in the range since its bound
 * was read end a page at its limit too.
 */
export function pageOf(columns: ExportPage['columns'], rows: unknown[][], hasMore: boolean, bound: ExportKeyset | null, exported: (rows: unknown[][]) => unknown[][] = (all) => all): ExportPage {
  const width = columns.length - 2;
  const lastRow = rows.at(-1);
  const endedEarly = lastRow !== undefined && hasMore;
  return {
    columns: columns.slice(0, width),
    // The next page goes on after the last row read, exported or not.
    rows: exported(rows).map((row) => row.slice(0, width)),
    last: endedEarly ? { at: String(lastRow[width]), uuid: String(lastRow[width + 1]) } : bound && { at: bound.at, uuid: bound.uuid },
    more: endedEarly || bound !== null,
  };
}

/**
 * Checks a batch export's `SELECT … FROM events` as PostHog does (no unions, CTEs, subqueries or
 * joins; only the fields a batch export reads) and says what it exports. 400s name `hogql_query`.
 */
export async function checkExportQuery(environmentId: number, text: string): Promise<ExportQuery> {
  const ast = await asExportError(() => parseHogQLSelect(environmentId, text), 'hogql_query');
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

/** The SQL of one page of an export over `range`: the query's columns, then the row's keyset. */
export function compileExportPage(query: ExportQuery, window: ExportWindow, range: PageRange, limit: number): CompiledQuery {
  return compileHogQL(exportPageQuery(query, window, range, limit), exportCompileOptions(limit));
}

/** How a page is compiled, for either engine: no variables, times in UTC. */
export function exportCompileOptions(limit: number): CompileOptions {
  return { variables: {}, limit, timezone: 'UTC' };
}

/** The HogQL of one page of an export over `range`: the query's columns, then the row's keyset (its last two). */
export function exportPageQuery(query: ExportQuery, window: ExportWindow, range: PageRange, limit: number): HogQLNode {
  // The events' own columns, qualified by the FROM item: a select alias (`now() AS created_at`)
  // stands in for an unqualified name, and must not for the interval, the keyset or the filters.
  const from = (query.ast.select_from as HogQLNode).alias;
  const own = (node: HogQLNode) => mapFields(node, (chain) => field(typeof from === 'string' ? from : 'events', ...chain)) as HogQLNode;
  // Every column is named as the schema names it, whatever the fields beneath are rewritten to.
  const named = { ...query.ast, select: (query.ast.select as HogQLNode[]).map((expr, index) => (isKind(expr, 'Alias') ? expr : alias(query.fields[index]!.alias, expr))) };
  const ast = rewriteFields(structuredClone(named), window, own);
  // The order of an events index (environment, time, uuid). A uuid is the environment's once
  // (ingestion keeps one of each): each event is read once.
  const time = own(field(window.by));
  const id = own(field('uuid'));
  const filters = asFilterError(() => propertiesCondition(window.filters ?? null));
  const conditions: (HogQLNode | null)[] = [
    (ast.where as HogQLNode | null) ?? null,
    ...rangeConditions(time, id, own(field('timestamp')), window, range),
    window.includeEvents?.length ? compare('in', own(field('event')), tuple(window.includeEvents.map(constant))) : null,
    window.excludeEvents?.length ? compare('not in', own(field('event')), tuple(window.excludeEvents.map(constant))) : null,
    filters && own(filters),
  ];
  return {
    ...ast,
    select: [...(ast.select as HogQLNode[]), alias(KEYSET_TIME, time), alias(KEYSET_ID, call('toString', [id]))],
    where: and(conditions.filter((condition): condition is HogQLNode => condition !== null)),
    order_by: [orderBy(time), orderBy(id)],
    limit: constant(limit),
  };
}

/**
 * The interval and the page's keys as that index's range. The time alone is compared with a
 * constant, which PostgreSQL takes as leakproof and pushes beneath the views' security barrier into
 * the index scan, bounding it on both sides; the uuid only breaks ties at the two ends, above it.
 */
function rangeConditions(time: HogQLNode, id: HogQLNode, stamp: HogQLNode, window: ExportWindow, range: PageRange): (HogQLNode | null)[] {
  const { after, bound } = range;
  const at = (iso: string) => call('toDateTime', [constant(iso)]);
  const uuid = (text: string) => call('toUUID', [constant(text)]);
  return [
    window.start ? compare('>=', time, at(window.start.toISOString())) : null,
    compare('<', time, at(window.end.toISOString())),
    after ? compare('>=', time, at(after.at)) : null,
    after ? or([compare('>', time, at(after.at)), compare('>', id, uuid(after.uuid))]) : null,
    bound ? compare('<=', time, at(bound.at)) : null,
    bound ? or([compare('<', time, at(bound.at)), compare('<=', id, uuid(bound.uuid))]) : null,
    range.timestamps ? compare('>=', stamp, at(range.timestamps.from)) : null,
    range.timestamps ? compare('<=', stamp, at(range.timestamps.to)) : null,
  ];
}

/**
 * PostHog's event fields this platform keeps elsewhere (the person's properties, the elements
 * chain, the team) and its views' `_inserted_at`: the time the window selects by, as PostHog's
 * backfill view exports `timestamp AS _inserted_at`.
 */
function rewriteFields(ast: HogQLNode, window: ExportWindow, own: (node: HogQLNode) => HogQLNode): HogQLNode {
  return mapFields(ast, ([head, ...rest]) => {
    if (head === 'person_properties') return own(field('person', 'properties', ...rest));
    if (head === 'elements_chain' && rest.length === 0) return call('coalesce', [own(field('properties', '$elements_chain')), constant('')]);
    if (head === 'team_id' && rest.length === 0) return constant(window.teamId);
    if (head === '_inserted_at' && rest.length === 0) return own(field(window.by));
    return null;
  }) as HogQLNode;
}

/** A copy of an AST with each field `replace` answers a node for replaced (the others kept). */
function mapFields(value: unknown, replace: (chain: string[]) => HogQLNode | null): unknown {
  if (Array.isArray(value)) return value.map((item) => mapFields(item, replace));
  if (typeof value !== 'object' || value === null) return value;
  const node = value as HogQLNode;
  const replaced = isKind(node, 'Field') ? replace(node.chain as string[]) : null;
  if (replaced) return replaced;
  return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, key === 'start' || key === 'end' ? item : mapFields(item, replace)]));
}

async function asExportError<T>(work: () => Promise<T>, attr: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // The field is the export's; the code stays the compiler's (query_too_complex among them).
    if (error instanceof HogQLError) throw new ValidationError(error.message, attr, String(error.extensions.code));
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
  const { columns } = compileExportPage(query, { teamId: 0, by: 'created_at', start: null, end: new Date(0) }, { after: null, bound: null }, 1);
  return columns.slice(0, columns.length - 2);
}
