import { assertOnly, child, isKind, isNode, required, text } from '../parse/hogql.ast.js';
import type { CompileContext, CompiledSelect, Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { renamed } from './hogql.from.js';
import { variableValue, placeholderName } from './hogql.placeholders.js';
import type { CteScope } from './hogql.scope.js';
import { compileSelect } from './hogql.select.js';
import type { HogQLNode } from '../hogql.types.js';
import { compileSet } from './hogql.union.js';

export interface QueryOptions {
  /** Print the WITH clause of its CTE scope first (members of a UNION share their set's instead). */
  renderWith: boolean;
  /** For the outer query: the effective limit, which replaces its own LIMIT. */
  outerLimit?: number;
}

/** A SELECT or a UNION (and co.), anywhere in a query; the budget counts the SQL it writes around its expressions. */
export function compileQueryNode(node: HogQLNode, ctes: CteScope, ctx: CompileContext, options: QueryOptions): CompiledSelect {
  if (isKind(node, 'SelectQuery')) return ctx.budget.write(() => compileSelect(node, ctes, ctx, options));
  if (isKind(node, 'SelectSetQuery')) return ctx.budget.write(() => compileSet(node, ctes, ctx, options));
  throw new HogQLError(`Unsupported node: ${node.node}`);
}

/**
 * `WITH name AS (SELECT ...)` compiles the subquery once, under an alias of ours; `WITH expr AS
 * name` keeps the expression, compiled where the name is used. Each CTE sees the ones before it.
 */
export function registerCtes(node: HogQLNode, ctes: CteScope, ctx: CompileContext): void {
  const raw = node.ctes;
  if (raw === null || raw === undefined) return;
  const list = Array.isArray(raw) ? raw : typeof raw === 'object' ? Object.values(raw) : [];
  for (const cte of list) {
    if (!isNode(cte) || cte.node !== 'CTE') throw new HogQLError('Unsupported node in WITH');
    assertOnly(cte, ['name', 'expr', 'cte_type', 'columns', 'materialized']);
    const name = text(cte, 'name');
    const expr = required(cte, 'expr');
    if (cte.cte_type === 'column') {
      ctes.addExpression(name, expr);
      continue;
    }
    const compiled = ctx.compileQuery(expr, ctes.child());
    ctes.addSubquery(name, { alias: ctx.nextAlias('w'), columns: renamed(compiled.columns, cte, 'columns') }, compiled.sql);
  }
}

/** LIMIT and OFFSET: the outer limit (one row more, to tell whether more exist) or the query's own. */
export function limitClause(node: HogQLNode, env: Env, options: QueryOptions): string {
  const limit = options.outerLimit !== undefined ? options.outerLimit + 1 : countOf(node, 'limit', env.ctx);
  const offset = countOf(node, 'offset', env.ctx);
  return [
    limit !== undefined ? `LIMIT ${env.ctx.params.bind(limit, 'bigint')}` : '',
    offset !== undefined ? `OFFSET ${env.ctx.params.bind(offset, 'bigint')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** A LIMIT or OFFSET: a whole number, written out or given as a variable. */
export function countOf(node: HogQLNode, key: 'limit' | 'offset', ctx: CompileContext): number | undefined {
  const value = child(node, key);
  if (!value) return undefined;
  let count: unknown;
  if (isKind(value, 'Constant')) count = value.value;
  else if (isKind(value, 'Placeholder')) count = variableValue(placeholderName(value), ctx.variables);
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new HogQLError(`${key.toUpperCase()} must be a whole number (written out or a variable)`);
  }
  return count;
}
