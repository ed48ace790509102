import { assertDepth, isKind } from '../parse/hogql.ast.js';
import type { CompileContext } from './hogql.context.js';
import { isTimeZone } from '../functions/conversion.functions.js';
import { HogQLError } from '../hogql.errors.js';
import { effectiveLimit } from '../hogql.limits.js';
import { CompileBudget } from './hogql.budget.js';
import { ParamBinder } from './hogql.params.js';
import { compileQueryNode, countOf } from './hogql.query.js';
import { CteScope } from './hogql.scope.js';
import type { CompileOptions, CompiledQuery, ExprType, HogQLNode, HogQLType } from '../hogql.types.js';

export type { CompileOptions, CompiledQuery, HogQLNode, HogQLType, VariableValue } from '../hogql.types.js';
export { placeholdersOf } from './hogql.placeholders.js';

/**
 * Compiles a HogQL AST (PostHog's parser's) to one PostgreSQL SELECT over the team's query views.
 * Only what the compiler knows reaches the SQL: tables, columns, functions and node kinds come from
 * allow-lists (anything else is a HogQLError naming it), every value is a bound parameter, every
 * identifier is ours. The SQL asks for `limit + 1` rows, so that the caller can tell whether more exist.
 */
export function compileHogQL(ast: HogQLNode, options: CompileOptions): CompiledQuery {
  assertDepth(ast);
  if (!isKind(ast, 'SelectQuery') && !isKind(ast, 'SelectSetQuery')) throw new HogQLError(`Unsupported node: ${String((ast as Partial<HogQLNode> | null)?.node)}`);
  const ctx = context(options);
  const limit = effectiveLimit(askedLimit(options.limit), countOf(ast, 'limit', ctx));
  const compiled = compileQueryNode(ast, new CteScope(null), ctx, { renderWith: true, outerLimit: limit });
  const { sql, values } = ctx.params.finalize(compiled.sql);
  assertOwnSql(sql);
  return { sql, values, columns: compiled.columns.map((column) => ({ name: column.name, type: publicType(column.type) })), limit };
}

function context(options: CompileOptions): CompileContext {
  const timezone = options.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) throw new HogQLError(`Unknown time zone: ${timezone}`);
  const counters = { t: 0, w: 0 };
  const ctx: CompileContext = {
    params: new ParamBinder(),
    variables: options.variables ?? {},
    timezone,
    nextAlias: (prefix) => `_${prefix}${++counters[prefix]}`,
    budget: new CompileBudget(),
    compileQuery: (node, ctes) => compileQueryNode(node, ctes, ctx, { renderWith: true }),
  };
  return ctx;
}

function askedLimit(limit: number | undefined): number | undefined {
  if (limit === undefined || limit === null) return undefined;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new HogQLError(`Invalid limit: ${limit}`);
  return limit;
}

function publicType(type: ExprType): HogQLType {
  return type === 'Interval' ? 'Unknown' : type;
}

/**
 * A last guard for our own mistakes: the SQL we write never holds a statement separator or a
 * comment, and every marker was numbered. Finding one is a bug, not a user error.
 */
function assertOwnSql(sql: string): void {
  if (/;|--|\/\*|\uE000/.test(sql)) throw new Error('Compiled HogQL failed the SQL safety check');
}
