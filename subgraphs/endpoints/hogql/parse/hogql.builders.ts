import type { HogQLNode } from '../hogql.types.js';

/** Builders of HogQL AST nodes, shaped as PostHog's parser shapes them, for queries built in code. */

export function constant(value: string | number | boolean | null): HogQLNode {
  return { node: 'Constant', value };
}

export function field(...chain: string[]): HogQLNode {
  return { node: 'Field', chain };
}

export function call(name: string, args: HogQLNode[], options: { distinct?: boolean; params?: HogQLNode[] } = {}): HogQLNode {
  return { node: 'Call', name, args, distinct: options.distinct ?? false, params: options.params ?? null };
}

export function compare(op: string, left: HogQLNode, right: HogQLNode): HogQLNode {
  return { node: 'CompareOperation', op, left, right };
}

export function arithmetic(op: '+' | '-', left: HogQLNode, right: HogQLNode): HogQLNode {
  return { node: 'ArithmeticOperation', op, left, right };
}

/** All of the conditions (none: null, one: itself). */
export function and(exprs: HogQLNode[]): HogQLNode | null {
  if (exprs.length === 0) return null;
  return exprs.length === 1 ? exprs[0]! : { node: 'And', exprs };
}

export function or(exprs: HogQLNode[]): HogQLNode | null {
  if (exprs.length === 0) return null;
  return exprs.length === 1 ? exprs[0]! : { node: 'Or', exprs };
}

export function tuple(exprs: HogQLNode[]): HogQLNode {
  return { node: 'Tuple', exprs };
}

export function alias(name: string, expr: HogQLNode): HogQLNode {
  return { node: 'Alias', alias: name, expr };
}

export function orderBy(expr: HogQLNode, order: 'ASC' | 'DESC' = 'ASC'): HogQLNode {
  return { node: 'OrderExpr', expr, order };
}

export interface SelectParts {
  select: HogQLNode[];
  from: string;
  where?: HogQLNode | null;
  groupBy?: HogQLNode[];
  orderBy?: HogQLNode[];
  limit?: number;
}

export function selectQuery(parts: SelectParts): HogQLNode {
  return {
    node: 'SelectQuery',
    select: parts.select,
    select_from: { node: 'JoinExpr', table: field(parts.from), alias: null, next_join: null },
    where: parts.where ?? null,
    group_by: parts.groupBy ?? null,
    order_by: parts.orderBy ?? null,
    limit: parts.limit === undefined ? null : constant(parts.limit),
  };
}

/** `a UNION ALL b UNION ALL ...`, with an ORDER BY and LIMIT of the whole. */
export function unionAll(queries: HogQLNode[], order: HogQLNode[], limit: number): HogQLNode {
  const [first, ...rest] = queries;
  return {
    node: 'SelectSetQuery',
    initial_select_query: first,
    subsequent_select_queries: rest.map((query) => ({ node: 'SelectSetNode', select_query: query, set_operator: 'UNION ALL' })),
    order_by: order,
    limit: constant(limit),
  };
}
