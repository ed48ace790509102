import { assertOnly, isKind, required } from '../parse/hogql.ast.js';
import type { Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { compileExpr } from './hogql.expressions.js';
import type { Expr, HogQLNode } from '../hogql.types.js';

/**
 * The expression an ORDER BY or GROUP BY item stands for: a whole number is a position in the
 * SELECT list (ClickHouse's positional arguments), anything else an expression, where select
 * aliases resolve as fields do.
 */
export function itemExpr(node: HogQLNode, env: Env, columns: Expr[]): Expr {
  if (isKind(node, 'Constant') && typeof node.value === 'number') {
    const column = columns[node.value - 1];
    if (!Number.isInteger(node.value) || !column) throw new HogQLError(`Position ${node.value} is not in the SELECT list (1 to ${columns.length})`);
    return env.ctx.budget.reuse(column);
  }
  return compileExpr(node, env);
}

/** One ORDER BY item; NULLs sort last both ways, as in ClickHouse (PostgreSQL puts them first when descending). */
export function orderItemSql(node: HogQLNode, env: Env, columns: Expr[] = []): string {
  if (!isKind(node, 'OrderExpr')) throw new HogQLError(`Unsupported node: ${node.node} in ORDER BY`);
  assertOnly(node, ['expr', 'order']);
  const direction = node.order === 'DESC' ? 'DESC' : 'ASC';
  return `${itemExpr(required(node, 'expr'), env, columns).sql} ${direction} NULLS LAST`;
}
