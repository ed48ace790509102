import type { Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { compileExpr } from './hogql.expressions.js';
import { propertyExpr } from './hogql.properties.js';
import type { Source } from './hogql.scope.js';
import { findTable, memberOf, type TableDef } from './hogql.tables.js';
import type { Expr } from '../hogql.types.js';

type Chain = (string | number)[];

/**
 * Resolves a field as PostHog's resolver does: a table qualifier first (`e.event`), then a select
 * alias, then the columns of the FROM items (refusing a name two of them have), then a
 * `WITH expr AS name` CTE. Whatever is left of the chain reads a JSON document.
 */
export function fieldExpr(chain: Chain, env: Env): Expr {
  const [first, ...rest] = chain;
  if (typeof first !== 'string') throw new HogQLError(`Unknown field: ${chain.join('.')}`);
  if (chain.includes('*')) throw new HogQLError("Cannot use '*' here: only as a whole SELECT column or in count(*)");
  const qualified = rest.length > 0 ? env.scope.source(first) : undefined;
  if (qualified) return inSource(qualified, rest, env);
  const alias = env.scope.aliases.get(first);
  if (alias) return rest.length > 0 ? propertyExpr(alias, rest, env) : { ...alias, name: first };
  const owners = env.scope.sources.filter((source) => hasMember(source, first));
  if (owners.length > 1) throw new HogQLError(`Ambiguous query. Found multiple sources for field: ${first}`);
  if (owners.length === 1) return inSource(owners[0]!, chain, env);
  const cte = env.scope.ctes.expression(first);
  if (cte) return expandColumnCte(first, cte, rest, env);
  throw unknownField(first, env.scope.sources.length === 1 ? env.scope.sources[0]! : null);
}

function hasMember(source: Source, name: string): boolean {
  if (source.table) return memberOf(source.table, name) !== undefined;
  return source.columns?.some((column) => column.name === name) ?? false;
}

function unknownField(name: string | number, source: Source | null): HogQLError {
  return new HogQLError(`Unknown field: ${name}${source?.table ? ` on table ${source.table.name}` : ''}`);
}

function inSource(source: Source, chain: Chain, env: Env): Expr {
  if (source.table) return inTable(source, source.table, { alias: source.alias, path: '', nullable: source.optional }, chain, env);
  const [name, ...rest] = chain;
  const column = source.columns?.find((candidate) => candidate.name === name);
  if (!column) throw unknownField(name!, source);
  const expr: Expr = {
    sql: `"${source.alias}"."${column.sqlName}"`,
    type: column.type,
    nullable: column.nullable || source.optional,
    property: column.property,
    name: column.name,
  };
  return rest.length > 0 ? propertyExpr(expr, rest, env) : expr;
}

/** Where a walk through a table and its lazy joins stands. */
interface Position {
  alias: string;
  /** The lazy joins taken so far, dotted (`pdi.person`). */
  path: string;
  nullable: boolean;
}

function inTable(source: Source, table: TableDef, at: Position, chain: Chain, env: Env): Expr {
  const [name, ...rest] = chain;
  const member = typeof name === 'string' ? memberOf(table, name) : undefined;
  if (!member) throw new HogQLError(`Unknown field: ${name} on table ${table.name}`);
  if ('type' in member) {
    const expr: Expr = { sql: `"${at.alias}"."${member.name}"`, type: member.type, nullable: at.nullable, name: member.name };
    return rest.length > 0 ? propertyExpr(expr, rest, env) : expr;
  }
  if ('path' in member) return inTable(source, table, at, [...member.path, ...rest], env);
  if (rest.length === 0) throw new HogQLError(`Cannot select the table ${member.name} as a column: name one of its fields`);
  const target = findTable(member.table)!;
  const path = at.path ? `${at.path}.${member.name}` : member.name;
  const alias = source.lazyAlias(path, (joined) => `LEFT JOIN ${target.sql} AS "${joined}" ON "${joined}"."${member.to}" = "${at.alias}"."${member.from}"`);
  return inTable(source, target, { alias, path, nullable: true }, rest, env);
}

/** `WITH expr AS name`: the expression, compiled where the name is used (ClickHouse's semantics). */
function expandColumnCte(name: string, cte: Parameters<typeof compileExpr>[0], rest: Chain, env: Env): Expr {
  if (env.scope.expanding.has(name)) throw new HogQLError(`The CTE ${name} refers to itself`);
  env.scope.expanding.add(name);
  try {
    const expr = { ...compileExpr(cte, env), name };
    return rest.length > 0 ? propertyExpr(expr, rest, env) : expr;
  } finally {
    env.scope.expanding.delete(name);
  }
}
