import { assertOnly, children, required } from '../parse/hogql.ast.js';
import type { CompileContext, CompiledSelect, Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { compileQueryNode, limitClause, type QueryOptions } from './hogql.query.js';
import { Scope, type CteScope } from './hogql.scope.js';
import { orderByClause } from './hogql.select.js';
import type { Expr, HogQLNode } from '../hogql.types.js';

const SET_OPERATORS: Record<string, string> = {
  'UNION ALL': 'UNION ALL',
  'UNION DISTINCT': 'UNION',
  INTERSECT: 'INTERSECT',
  'INTERSECT DISTINCT': 'INTERSECT',
  EXCEPT: 'EXCEPT',
  'EXCEPT DISTINCT': 'EXCEPT',
};

/**
 * `a UNION ALL b` and co. Each member keeps its own ORDER BY and LIMIT (in ClickHouse a trailing
 * ORDER BY belongs to the last member); the members share one CTE scope, as in PostHog, so a CTE
 * defined in one is visible to the next. The result's columns are the first member's.
 */
export function compileSet(node: HogQLNode, ctes: CteScope, ctx: CompileContext, options: QueryOptions): CompiledSelect {
  assertOnly(node, ['initial_select_query', 'subsequent_select_queries', 'order_by', 'limit', 'offset']);
  const member = (query: HogQLNode): CompiledSelect => compileQueryNode(query, ctes, ctx, { renderWith: false });
  const first = member(required(node, 'initial_select_query'));
  let sql = `(${first.sql})`;
  for (const next of children(node, 'subsequent_select_queries')) {
    assertOnly(next, ['select_query', 'set_operator']);
    const operator = typeof next.set_operator === 'string' && Object.hasOwn(SET_OPERATORS, next.set_operator) ? SET_OPERATORS[next.set_operator] : undefined;
    if (!operator) throw new HogQLError(`Unsupported set operator: ${String(next.set_operator)}`);
    const compiled = member(required(next, 'select_query'));
    if (compiled.columns.length !== first.columns.length) {
      throw new HogQLError(`All queries of a ${operator} must have the same number of columns (${first.columns.length}, not ${compiled.columns.length})`);
    }
    sql += ` ${operator} (${compiled.sql})`;
  }
  const outputs = first.columns.map((column): Expr => ({ sql: `"${column.sqlName}"`, type: column.type, nullable: column.nullable, name: column.name }));
  const env = setEnv(outputs, ctes, ctx);
  const tail = [orderByClause(children(node, 'order_by'), env, outputs), limitClause(node, env, options)].filter(Boolean).join(' ');
  const body = tail ? `${sql} ${tail}` : sql;
  return { sql: options.renderWith ? `${ctes.renderWith()}${body}` : body, columns: first.columns };
}

/** An ORDER BY of the whole set names its output columns (or their positions). */
function setEnv(outputs: Expr[], ctes: CteScope, ctx: CompileContext): Env {
  const scope = new Scope(ctes);
  for (const output of outputs) if (!scope.aliases.has(output.name!)) scope.addAlias(output.name!, output);
  return { ctx, scope, clause: 'order_by', inAggregate: false };
}
