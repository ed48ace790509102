import { assertOnly, chainOf, child, children, isKind, isNode, required, text } from '../parse/hogql.ast.js';
import { asBoolean } from './hogql.coerce.js';
import type { CompileContext, CompiledSelect, Env, OutputColumn } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { compileExpr } from './hogql.expressions.js';
import { compileFrom } from './hogql.from.js';
import { columnName } from './hogql.naming.js';
import { itemExpr, orderItemSql } from './hogql.order.js';
import { limitClause, registerCtes, type QueryOptions } from './hogql.query.js';
import { Scope, type Source, type CteScope } from './hogql.scope.js';
import type { Expr, HogQLNode } from '../hogql.types.js';

/** What a SELECT may carry. PREWHERE, QUALIFY, SAMPLE, ARRAY JOIN, LIMIT BY, WITH TIES and SETTINGS are refused. */
const SELECT_KEYS = ['select', 'select_from', 'where', 'group_by', 'group_by_mode', 'having', 'order_by', 'limit', 'offset', 'distinct', 'ctes', 'window_exprs'];

const GROUP_BY_MODES: Record<string, string> = { rollup: 'ROLLUP', cube: 'CUBE' };

interface SelectItem {
  expr: Expr;
  name: string;
}

export function compileSelect(node: HogQLNode, ctes: CteScope, ctx: CompileContext, options: QueryOptions): CompiledSelect {
  assertOnly(node, SELECT_KEYS);
  registerCtes(node, ctes, ctx);
  const scope = new Scope(ctes);
  const env: Env = { ctx, scope, clause: 'select', inAggregate: false };
  registerWindows(node, scope);
  const from = compileFrom(child(node, 'select_from'), env);
  const items = selectItems(node, env);
  const exprs = items.map((item) => item.expr);
  const clauses = [
    conditionClause('WHERE', child(node, 'where'), { ...env, clause: 'where' }),
    groupByClause(node, { ...env, clause: 'group_by' }, exprs),
    conditionClause('HAVING', child(node, 'having'), { ...env, clause: 'having' }),
    orderByClause(children(node, 'order_by'), { ...env, clause: 'order_by' }, exprs),
    limitClause(node, env, options),
  ];
  const columns: OutputColumn[] = items.map((item, index) => ({
    name: item.name,
    sqlName: `_c${index + 1}`,
    type: item.expr.type,
    nullable: item.expr.nullable,
    property: item.expr.property,
  }));
  const list = items.map((item, index) => `${item.expr.sql} AS "${columns[index]!.sqlName}"`).join(', ');
  const head = `SELECT ${node.distinct === true ? 'DISTINCT ' : ''}${list}`;
  const sql = [head, from ? `FROM ${from()}` : '', ...clauses].filter(Boolean).join(' ');
  return { sql: options.renderWith ? `${ctes.renderWith()}${sql}` : sql, columns };
}

function registerWindows(node: HogQLNode, scope: Scope): void {
  const windows = node.window_exprs;
  if (windows === null || windows === undefined) return;
  if (typeof windows !== 'object' || Array.isArray(windows)) throw new HogQLError('Unsupported node: SelectQuery.window_exprs');
  for (const [name, window] of Object.entries(windows)) {
    if (!isNode(window) || window.node !== 'WindowExpr') throw new HogQLError('Unsupported node: SelectQuery.window_exprs');
    scope.windows.set(name, window);
  }
}

/** The SELECT list: `*` expanded to the real columns, aliases registered once their expression is compiled. */
function selectItems(node: HogQLNode, env: Env): SelectItem[] {
  const items: SelectItem[] = [];
  for (const item of children(node, 'select')) {
    if (isKind(item, 'Field') && chainOf(item).at(-1) === '*') {
      for (const star of starItems(chainOf(item), env.scope)) {
        env.ctx.budget.reuse(star.expr);
        items.push(star);
      }
      continue;
    }
    if (isKind(item, 'Alias')) {
      assertOnly(item, ['alias', 'expr', 'hidden']);
      const expr = compileExpr(required(item, 'expr'), env);
      env.scope.addAlias(text(item, 'alias'), expr);
      items.push({ expr, name: text(item, 'alias') });
      continue;
    }
    const expr = compileExpr(item, env);
    items.push({ expr, name: columnName(item, expr, env.ctx.variables) });
  }
  if (items.length === 0) throw new HogQLError('A SELECT needs at least one column');
  return items;
}

/** `*` and `t.*`: the real columns of the table (not lazy joins or virtual fields), or of the subquery. */
function starItems(chain: (string | number)[], scope: Scope): SelectItem[] {
  if (chain.length > 2) throw new HogQLError(`Cannot expand ${chain.join('.')}`);
  const source = chain.length === 2 ? scope.source(String(chain[0])) : onlySource(scope);
  if (!source) throw new HogQLError(`Unknown table: ${String(chain[0])}`);
  if (source.table) {
    return source.table.columns.map((column) => ({
      expr: { sql: `"${source.alias}"."${column.name}"`, type: column.type, nullable: source.optional },
      name: column.name,
    }));
  }
  return (source.columns ?? []).map((column) => ({
    expr: { sql: `"${source.alias}"."${column.sqlName}"`, type: column.type, nullable: column.nullable || source.optional, property: column.property },
    name: column.name,
  }));
}

function onlySource(scope: Scope): Source {
  if (scope.sources.length === 0) throw new HogQLError("Cannot use '*' when there are no tables in the query");
  if (scope.sources.length > 1) throw new HogQLError("Cannot use '*' without table name when there are multiple tables in the query");
  return scope.sources[0]!;
}

function conditionClause(keyword: string, node: HogQLNode | null, env: Env): string {
  if (!node) return '';
  const condition = asBoolean(compileExpr(node, env), keyword);
  if (keyword === 'WHERE' && condition.aggregate) throw new HogQLError('Aggregations are not allowed in WHERE; use HAVING');
  return `${keyword} ${condition.sql}`;
}

function groupByClause(node: HogQLNode, env: Env, columns: Expr[]): string {
  const items = children(node, 'group_by').map((item) => itemExpr(item, env, columns));
  if (items.length === 0) return '';
  if (items.some((item) => item.aggregate)) throw new HogQLError('Aggregations are not allowed in GROUP BY');
  const list = items.map((item) => item.sql).join(', ');
  const mode = node.group_by_mode;
  if (mode === null || mode === undefined) return `GROUP BY ${list}`;
  const keyword = typeof mode === 'string' && Object.hasOwn(GROUP_BY_MODES, mode) ? GROUP_BY_MODES[mode] : undefined;
  if (!keyword) throw new HogQLError(`Unsupported GROUP BY mode: ${String(mode)}`);
  return `GROUP BY ${keyword}(${list})`;
}

export function orderByClause(items: HogQLNode[], env: Env, columns: Expr[]): string {
  if (items.length === 0) return '';
  return `ORDER BY ${items.map((item) => orderItemSql(item, env, columns)).join(', ')}`;
}
