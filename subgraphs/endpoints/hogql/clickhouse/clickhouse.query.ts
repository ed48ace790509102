import { chainOf, child, children, isKind, required, text } from '../parse/hogql.ast.js';
import { JOIN_TYPES, renamed } from '../compile/hogql.from.js';
import { Source } from '../compile/hogql.scope.js';
import { columnName } from '../compile/hogql.naming.js';
import { countOf } from '../compile/hogql.query.js';
import { findTable } from '../compile/hogql.tables.js';
import type { CompileContext } from '../compile/hogql.context.js';
import type { Expr, HogQLNode } from '../hogql.types.js';
import { asBoolean } from './clickhouse.coerce.js';
import type { OutputColumn } from '../compile/hogql.context.js';
import type { PrintContext, PrintEnv, Printed } from './clickhouse.context.js';
import { notYet, printExpr } from './clickhouse.expressions.js';
import { PrintScope, type PrintCtes } from './clickhouse.scope.js';
import { ingestionFacade } from '../../../ingestion/facade.js';

export interface PrintOptions {
  renderWith: boolean;
  /** The outermost query's limit, which replaces its own LIMIT. */
  outerLimit?: number;
  /** The values are the answer's (the outermost query, or a member of the outermost set): written as the answer gives them. */
  answer?: boolean;
}

export interface PrintedQuery {
  sql: string;
  columns: OutputColumn[];
}

/** A SELECT or a set of them, anywhere in a query, as the PostgreSQL compiler took it (compile/hogql.query.ts). */
export function printQueryNode(node: HogQLNode, ctes: PrintCtes, ctx: PrintContext, options: PrintOptions): PrintedQuery {
  return isKind(node, 'SelectQuery') ? printSelect(node, ctes, ctx, options) : printSet(node, ctes, ctx, options);
}

function printSelect(node: HogQLNode, ctes: PrintCtes, ctx: PrintContext, options: PrintOptions): PrintedQuery {
  if (node.window_exprs) throw notYet('WINDOW');
  registerCtes(node, ctes, ctx);
  const scope = new PrintScope(ctes);
  const env: PrintEnv = { ctx, scope, clause: 'select' };
  const from = printFrom(child(node, 'select_from'), env);
  const items = selectItems(node, env);
  const exprs = items.map((item) => item.expr);
  const condition = (keyword: string, clause: PrintEnv['clause'], key: string) => {
    const found = child(node, key);
    return found ? `${keyword} ${asBoolean(printExpr(found, { ...env, clause })).sql}` : '';
  };
  const clauses = [
    condition('WHERE', 'where', 'where'),
    groupBy(node, { ...env, clause: 'group_by' }, exprs),
    condition('HAVING', 'having', 'having'),
    orderBy(children(node, 'order_by'), { ...env, clause: 'order_by' }, exprs),
    limitClause(node, env, options),
  ];
  const columns: OutputColumn[] = items.map((item, index) => ({ name: item.name, sqlName: `_c${index + 1}`, type: item.expr.type, nullable: item.expr.nullable, property: item.expr.property }));
  const list = items.map((item, index) => `${options.answer ? answered(item.expr) : item.expr.sql} AS "${columns[index]!.sqlName}"`).join(', ');
  const sql = [`SELECT ${node.distinct === true ? 'DISTINCT ' : ''}${list}`, from ? `FROM ${from()}` : '', ...clauses].filter(Boolean).join(' ');
  return { sql: options.renderWith ? `${ctes.renderWith()}${sql}` : sql, columns };
}

/**
 * A value of the answer as the PostgreSQL reader gives it (queries/query.executor.ts): booleans as
 * such, times as ISO 8601 in UTC with the fraction of a second PostgreSQL prints (none when zero).
 */
function answered(expr: Printed): string {
  return `materialize(${answerValue(expr)})`;
}

/**
 * Every column of the answer is materialized: ClickHouse counts a constant column's size once, not
 * per row, against max_result_bytes, so a constant a megabyte long would pass the limit row after row.
 */
function answerValue(expr: Printed): string {
  // Comparisons and the like are 0 or 1 to ClickHouse; the answer says true or false.
  if (expr.type === 'Boolean') return `toBool(${expr.sql})`;
  if (expr.type !== 'DateTime') return expr.sql;
  return `concat(replaceRegexpOne(formatDateTime(${expr.sql}, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), '\\\\.?0+$', ''), 'Z')`;
}

function registerCtes(node: HogQLNode, ctes: PrintCtes, ctx: PrintContext): void {
  const raw = node.ctes;
  if (raw === null || raw === undefined) return;
  for (const cte of (Array.isArray(raw) ? raw : Object.values(raw as object)) as HogQLNode[]) {
    const name = text(cte, 'name');
    const expr = required(cte, 'expr');
    if (cte.cte_type === 'column') {
      ctes.addExpression(name, expr);
      continue;
    }
    const printed = ctx.printQuery(expr, ctes.child());
    ctes.addSubquery(name, { alias: ctx.nextAlias('w'), columns: renamed(printed.columns, cte, 'columns') }, printed.sql);
  }
}

/** ClickHouse's spelling of the compiler's join keywords, where it has another one. */
const CLICKHOUSE_JOINS: Record<string, string> = { JOIN: 'INNER JOIN', 'FULL JOIN': 'FULL OUTER JOIN' };

/** The FROM items in the scope, and how to print them once every field has added its lazy joins. */
function printFrom(first: HogQLNode | null, env: PrintEnv): (() => string) | null {
  if (!first) return null;
  const pieces: { source: Source; keyword: string | null; on: string | null }[] = [];
  for (let join: HogQLNode | null = first; join; join = child(join, 'next_join')) {
    const keyword = pieces.length === 0 ? null : JOIN_TYPES[typeof join.join_type === 'string' ? join.join_type : 'JOIN']!;
    const source = sourceOf(join, env, keyword === 'LEFT JOIN' || keyword === 'FULL JOIN');
    if (keyword === 'RIGHT JOIN' || keyword === 'FULL JOIN') for (const piece of pieces) piece.source.makeOptional();
    env.scope.sources.push(source);
    const constraint = child(join, 'constraint');
    pieces.push({ source, keyword, on: constraint ? asBoolean(printExpr(required(constraint, 'expr'), { ...env, clause: 'join' })).sql : null });
  }
  return () =>
    pieces
      .map(({ source, keyword, on }) => {
        // ClickHouse joins left to right: an item's lazy joins follow it, and a later ON sees them.
        const { own, lazy } = source.parts();
        return [keyword && (CLICKHOUSE_JOINS[keyword] ?? keyword), own, on ? `ON ${on}` : null, ...lazy].filter(Boolean).join(' ');
      })
      .join(' ');
}

function sourceOf(join: HogQLNode, env: PrintEnv, optional: boolean): Source {
  const table = required(join, 'table');
  const alias = typeof join.alias === 'string' ? join.alias : null;
  const sqlAlias = env.ctx.nextAlias('t');
  if (isKind(table, 'Field')) {
    const name = chainOf(table).join('.');
    const cte = env.scope.ctes.subquery(name);
    if (cte) return new Source(alias ?? name, sqlAlias, `"${cte.alias}"`, null, renamed(cte.columns, join), optional);
    return new Source(alias ?? name, sqlAlias, ingestionFacade.querySurface.clickhouseTable(name, env.ctx.database, env.ctx.team), findTable(name)!, null, optional);
  }
  const printed = env.ctx.printQuery(table, env.scope.ctes.child());
  return new Source(alias, sqlAlias, `(${printed.sql})`, null, renamed(printed.columns, join), optional);
}

interface SelectItem {
  expr: Printed;
  name: string;
}

/** The SELECT list with `*` expanded; names come from the PostgreSQL compile, which the caller answers with. */
function selectItems(node: HogQLNode, env: PrintEnv): SelectItem[] {
  const items: SelectItem[] = [];
  for (const item of children(node, 'select')) {
    if (isKind(item, 'Field') && chainOf(item).at(-1) === '*') {
      items.push(...starItems(chainOf(item), env.scope));
      continue;
    }
    if (isKind(item, 'Alias')) {
      const expr = printExpr(required(item, 'expr'), env);
      env.scope.aliases.set(text(item, 'alias'), expr);
      items.push({ expr, name: text(item, 'alias') });
      continue;
    }
    const expr = printExpr(item, env);
    items.push({ expr, name: columnName(item, expr as Expr, env.ctx.variables) });
  }
  return items;
}

function starItems(chain: (string | number)[], scope: PrintScope): SelectItem[] {
  const source = chain.length === 2 ? scope.source(String(chain[0]))! : scope.sources[0]!;
  if (source.table) return source.table.columns.map((column) => ({ expr: { sql: `"${source.alias}"."${column.name}"`, type: column.type, nullable: source.optional }, name: column.name }));
  return (source.columns ?? []).map((column) => ({
    expr: { sql: `"${source.alias}"."${column.sqlName}"`, type: column.type, nullable: column.nullable || source.optional, property: column.property },
    name: column.name,
  }));
}

/** An ORDER BY or GROUP BY item: a whole number is a position in the SELECT list. */
function itemExpr(node: HogQLNode, env: PrintEnv, columns: Printed[]): Printed {
  if (isKind(node, 'Constant') && typeof node.value === 'number') return columns[node.value - 1]!;
  return printExpr(node, env);
}

function groupBy(node: HogQLNode, env: PrintEnv, columns: Printed[]): string {
  const items = children(node, 'group_by').map((item) => itemExpr(item, env, columns).sql);
  if (items.length === 0) return '';
  const mode = node.group_by_mode === 'rollup' ? 'ROLLUP' : node.group_by_mode === 'cube' ? 'CUBE' : null;
  return mode ? `GROUP BY ${mode}(${items.join(', ')})` : `GROUP BY ${items.join(', ')}`;
}

function orderBy(items: HogQLNode[], env: PrintEnv, columns: Printed[]): string {
  if (items.length === 0) return '';
  return `ORDER BY ${items.map((item) => `${itemExpr(required(item, 'expr'), env, columns).sql} ${item.order === 'DESC' ? 'DESC' : 'ASC'} NULLS LAST`).join(', ')}`;
}

/** LIMIT and OFFSET, bound: the outer limit (one row more, to tell whether more exist) or the query's own. */
function limitClause(node: HogQLNode, env: PrintEnv, options: PrintOptions): string {
  const counts = { variables: env.ctx.variables } as CompileContext;
  const limit = options.outerLimit !== undefined ? options.outerLimit + 1 : countOf(node, 'limit', counts);
  const offset = countOf(node, 'offset', counts);
  return [limit !== undefined ? `LIMIT ${env.ctx.params.bind(limit, 'Int64')}` : '', offset !== undefined ? `OFFSET ${env.ctx.params.bind(offset, 'Int64')}` : ''].filter(Boolean).join(' ');
}

const SET_OPERATORS: Record<string, string> = {
  'UNION ALL': 'UNION ALL',
  'UNION DISTINCT': 'UNION DISTINCT',
  INTERSECT: 'INTERSECT',
  'INTERSECT DISTINCT': 'INTERSECT DISTINCT',
  EXCEPT: 'EXCEPT',
  'EXCEPT DISTINCT': 'EXCEPT DISTINCT',
};

/** `a UNION ALL b` and co., as compile/hogql.union.ts: members share the CTE scope, the first names the columns. */
function printSet(node: HogQLNode, ctes: PrintCtes, ctx: PrintContext, options: PrintOptions): PrintedQuery {
  // Each member keeps its own LIMIT; the set's limit applies to the whole.
  const member = (query: HogQLNode) => printQueryNode(query, ctes, ctx, { renderWith: false, answer: options.answer });
  const first = member(required(node, 'initial_select_query'));
  let sql = `(${first.sql})`;
  for (const next of children(node, 'subsequent_select_queries')) sql += ` ${SET_OPERATORS[String(next.set_operator)]} (${member(required(next, 'select_query')).sql})`;
  const outputs: Printed[] = first.columns.map((column) => ({ sql: `"${column.sqlName}"`, type: column.type, nullable: column.nullable }));
  const scope = new PrintScope(ctes);
  first.columns.forEach((column, index) => scope.aliases.set(column.name, outputs[index]!));
  const env: PrintEnv = { ctx, scope, clause: 'order_by' };
  const tail = [orderBy(children(node, 'order_by'), env, outputs), limitClause(node, env, options)].filter(Boolean).join(' ');
  // ClickHouse takes no ORDER BY or LIMIT after a parenthesised member: the set is read as a subquery.
  const body = tail ? `SELECT * FROM (${sql}) ${tail}` : sql;
  return { sql: options.renderWith ? `${ctes.renderWith()}${body}` : body, columns: first.columns };
}
