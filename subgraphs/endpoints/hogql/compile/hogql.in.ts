import { isNumeric, typed } from './hogql.coerce.js';
import type { Env } from './hogql.context.js';
import { compileExpr } from './hogql.expressions.js';
import { arrayCast, plainValue } from './hogql.literals.js';
import type { Expr, HogQLNode } from '../hogql.types.js';
import { unify } from './hogql.unify.js';

/**
 * `x [NOT] IN (...)`: a list written out, a list variable, a subquery or an array. NULL is a value
 * like any other, as with PostHog's `transform_null_in`: a NULL `x` is not in a list of values, so
 * IN is false and NOT IN true.
 */
export function inExpr(left: Expr, rightNode: HogQLNode, negated: boolean, env: Env): Expr {
  return inValues(left, compileExpr(rightNode, env), negated, env);
}

/** IN with the right side compiled (also what has() and in() compile to). */
export function inValues(left: Expr, right: Expr, negated: boolean, env: Env): Expr {
  if (right.subquery) return inSubquery(left, right, negated, env);
  if (right.items) return inItems(left, right.items, negated, env);
  if (right.type === 'Array') return membership(left, right.sql, negated, left.nullable || right.nullable);
  // `x IN 'a'`: a single value.
  const [l, r] = unify(left, right, env);
  return membership(l, `ARRAY[${r.sql}]`, negated, l.nullable || r.nullable);
}

function membership(left: Expr, arraySql: string, negated: boolean, nullable: boolean): Expr {
  const test = negated ? `NOT (${left.sql} = ANY(${arraySql}))` : `${left.sql} = ANY(${arraySql})`;
  return typed(nullable ? `COALESCE(${test}, ${negated})` : `(${test})`, 'Boolean', left, { nullable: false });
}

function inSubquery(left: Expr, subquery: Expr, negated: boolean, env: Env): Expr {
  const [l] = unify(left, { ...subquery, literal: undefined }, env);
  const test = `${l.sql} ${negated ? 'NOT IN' : 'IN'} ${subquery.sql}`;
  return typed(`COALESCE(${test}, ${negated})`, 'Boolean', [l, subquery], { nullable: false });
}

/**
 * A list written out: one array parameter when every item is a constant of the left side's kind
 * (`event IN ('a', 'b')` is `event = ANY($1::text[])`), else each item brought to the left side's type.
 */
function inItems(left: Expr, items: Expr[], negated: boolean, env: Env): Expr {
  if (items.length === 0) return typed(String(negated), 'Boolean', [], { nullable: false });
  const values = items.map((item) => item.literal?.value);
  if (items.every((item) => item.literal) && fitsAsArray(left, values)) {
    const array = env.ctx.params.bind(values.map(plainValue), arrayCast(values));
    return membership(left, array, negated, left.nullable || values.includes(null));
  }
  const [l] = unify(left, items[0]!, env);
  const rights = items.map((item) => unify(l, item, env)[1]);
  return membership(l, `ARRAY[${rights.map((right) => right.sql).join(', ')}]`, negated, true);
}

/** Whether the constants can be compared with the left side as they are (no item needs converting). */
function fitsAsArray(left: Expr, values: unknown[]): boolean {
  const present = values.filter((value) => value !== null);
  if (left.type === 'String') return present.every((value) => typeof value === 'string');
  if (isNumeric(left)) return present.every((value) => typeof value === 'number' || typeof value === 'bigint');
  if (left.type === 'Boolean') return present.every((value) => typeof value === 'boolean');
  return false;
}
