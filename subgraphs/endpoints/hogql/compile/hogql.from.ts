import { assertOnly, chainOf, child, isKind, required } from '../parse/hogql.ast.js';
import { asBoolean } from './hogql.coerce.js';
import type { Env, OutputColumn } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { compileExpr } from './hogql.expressions.js';
import { Source } from './hogql.scope.js';
import { findTable } from './hogql.tables.js';
import type { HogQLNode } from '../hogql.types.js';

/** ClickHouse's join spellings we take, as PostgreSQL's; ANY, ASOF, SEMI, ANTI and GLOBAL joins are refused. */
export const JOIN_TYPES: Record<string, string> = {
  JOIN: 'JOIN',
  'INNER JOIN': 'JOIN',
  'ALL INNER JOIN': 'JOIN',
  'LEFT JOIN': 'LEFT JOIN',
  'LEFT OUTER JOIN': 'LEFT JOIN',
  'ALL LEFT JOIN': 'LEFT JOIN',
  'RIGHT JOIN': 'RIGHT JOIN',
  'RIGHT OUTER JOIN': 'RIGHT JOIN',
  'ALL RIGHT JOIN': 'RIGHT JOIN',
  'FULL JOIN': 'FULL JOIN',
  'FULL OUTER JOIN': 'FULL JOIN',
  'ALL FULL JOIN': 'FULL JOIN',
  'CROSS JOIN': 'CROSS JOIN',
};

const JOIN_KEYS = ['table', 'alias', 'join_type', 'constraint', 'next_join', 'column_aliases', 'table_args'];

interface JoinPiece {
  source: Source;
  keyword: string | null;
  on: string | null;
}

/**
 * Registers the FROM items of a SELECT in its scope and answers how to print the FROM clause,
 * printed last because fields used anywhere in the query may add lazy joins to an item.
 */
export function compileFrom(first: HogQLNode | null, env: Env): (() => string) | null {
  if (!first) return null;
  const pieces: JoinPiece[] = [];
  for (let join: HogQLNode | null = first; join; join = child(join, 'next_join')) {
    if (!isKind(join, 'JoinExpr')) throw new HogQLError(`Unsupported node: ${join.node} in FROM`);
    assertOnly(join, JOIN_KEYS);
    const keyword = pieces.length === 0 ? null : joinKeyword(join);
    const source = sourceOf(join, env, keyword === 'LEFT JOIN' || keyword === 'FULL JOIN');
    if (keyword === 'RIGHT JOIN' || keyword === 'FULL JOIN') pieces.forEach((piece) => piece.source.makeOptional());
    env.scope.addSource(source);
    pieces.push({ source, keyword, on: constraintSql(join, keyword, env) });
  }
  return () => pieces.map(({ source, keyword, on }) => [keyword, source.render(), on ? `ON ${on}` : null].filter(Boolean).join(' ')).join(' ');
}

function joinKeyword(join: HogQLNode): string {
  const type = typeof join.join_type === 'string' ? join.join_type : 'JOIN';
  const keyword = Object.hasOwn(JOIN_TYPES, type) ? JOIN_TYPES[type] : undefined;
  if (!keyword) throw new HogQLError(`Unsupported join: ${type}`);
  return keyword;
}

function constraintSql(join: HogQLNode, keyword: string | null, env: Env): string | null {
  const constraint = child(join, 'constraint');
  if (keyword === null || keyword === 'CROSS JOIN') {
    if (constraint) throw new HogQLError('Only a JOIN takes an ON constraint');
    return null;
  }
  if (!constraint) throw new HogQLError(`${keyword} needs an ON constraint`);
  assertOnly(constraint, ['expr', 'constraint_type']);
  if (constraint.constraint_type !== 'ON') throw new HogQLError(`Unsupported join constraint: ${String(constraint.constraint_type)} (use ON)`);
  return asBoolean(compileExpr(required(constraint, 'expr'), { ...env, clause: 'join' }), 'ON').sql;
}

/** A FROM item: a table of ours, a CTE, or a subquery; anything else (pg_class, numbers(10), ...) is refused. */
function sourceOf(join: HogQLNode, env: Env, optional: boolean): Source {
  const table = required(join, 'table');
  const alias = typeof join.alias === 'string' ? join.alias : null;
  const sqlAlias = env.ctx.nextAlias('t');
  if (isKind(table, 'Field')) {
    const name = chainOf(table).join('.');
    // Table functions (numbers(10), s3(...)) are no tables of ours.
    if (join.table_args) throw new HogQLError(`Unknown table: ${name}`);
    const cte = env.scope.ctes.subquery(name);
    if (cte) return new Source(alias ?? name, sqlAlias, `"${cte.alias}"`, null, renamed(cte.columns, join), optional);
    const found = findTable(name);
    if (!found) throw new HogQLError(`Unknown table: ${name}`);
    if (join.column_aliases) throw new HogQLError('Column aliases are supported on subqueries and CTEs only');
    return new Source(alias ?? name, sqlAlias, found.sql, found, null, optional);
  }
  if (isKind(table, 'SelectQuery') || isKind(table, 'SelectSetQuery')) {
    const compiled = env.ctx.compileQuery(table, env.scope.ctes.child());
    return new Source(alias, sqlAlias, `(${compiled.sql})`, null, renamed(compiled.columns, join), optional);
  }
  throw new HogQLError(`Unsupported node: ${table.node} in FROM`);
}

/** `AS s(a, b)`: new names for the first columns. */
export function renamed(columns: OutputColumn[], node: HogQLNode, key = 'column_aliases'): OutputColumn[] {
  const names = node[key];
  if (names === null || names === undefined) return columns;
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) throw new HogQLError(`Unsupported node: ${node.node}.${key}`);
  if (names.length > columns.length) throw new HogQLError(`${names.length} column names given for ${columns.length} columns`);
  return columns.map((column, index) => (index < names.length ? { ...column, name: names[index] as string } : column));
}
