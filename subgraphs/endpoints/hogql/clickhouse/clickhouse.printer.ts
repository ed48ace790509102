import { compileHogQL } from '../compile/hogql.compiler.js';
import type { CompileOptions, CompiledQuery, HogQLNode } from '../hogql.types.js';
import type { PrintContext } from './clickhouse.context.js';
import { ClickHouseParams } from './clickhouse.params.js';
import { printQueryNode } from './clickhouse.query.js';
import { PrintCtes } from './clickhouse.scope.js';

export interface ClickHouseTarget {
  /** The environment whose rows every table reference reads. */
  environmentId: number;
  /** The database of the events store's tables. */
  database: string;
}

/** A query printed for ClickHouse: its SQL with `{pN:Type}` parameters, their values, and the answer's shape. */
export interface ClickHouseQuery extends Omit<CompiledQuery, 'values'> {
  params: Record<string, unknown>;
  /** Settings the SQL's meaning depends on: PostHog's NULL semantics of joins and IN. */
  settings: Record<string, number>;
}

/**
 * Prints a HogQL AST for ClickHouse: a second printer of the AST the PostgreSQL compiler reads,
 * with PostHog's function names natively. The query is compiled for PostgreSQL first: its
 * allow-lists, arity and placement checks, names, types and limit are the same for both engines,
 * so a query either engine refuses is refused alike, and the answer's columns are the same. Every
 * value is a typed parameter; every table reference is a subquery filtered by the environment.
 */
export function printHogQLForClickHouse(ast: HogQLNode, options: CompileOptions, target: ClickHouseTarget): ClickHouseQuery {
  const checked = compileHogQL(ast, options);
  const params = new ClickHouseParams();
  const counters = { t: 0, w: 0 };
  const ctx: PrintContext = {
    params,
    variables: options.variables ?? {},
    timezone: options.timezone ?? 'UTC',
    database: target.database,
    team: params.bind(target.environmentId, 'Int64'),
    nextAlias: (prefix) => `_${prefix}${++counters[prefix]}`,
    printQuery: (node, ctes) => printQueryNode(node, ctes, ctx, { renderWith: true }),
  };
  const printed = printQueryNode(ast, new PrintCtes(null), ctx, { renderWith: true, outerLimit: checked.limit, answer: true });
  assertOwnSql(printed.sql);
  return { sql: printed.sql, params: params.all, columns: checked.columns, limit: checked.limit, settings: { join_use_nulls: 1, transform_null_in: 1 } };
}

/** Our own mistakes' guard, as the PostgreSQL compiler's: no statement separator, no comment. */
function assertOwnSql(sql: string): void {
  if (/;|--|\/\*/.test(sql)) throw new Error('Printed HogQL failed the SQL safety check');
}
