import { assertOnly, required, text } from '../parse/hogql.ast.js';
import { asText, typed } from './hogql.coerce.js';
import type { Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { compileExpr } from './hogql.expressions.js';
import { inExpr } from './hogql.in.js';
import type { Expr, HogQLNode } from '../hogql.types.js';
import { unify } from './hogql.unify.js';

/**
 * How PostHog treats NULL in each comparison outside JOIN constraints: the answer when exactly one
 * side is NULL, and when both are (`=` finds NULL equal to NULL, `!=` finds NULL unequal to a value).
 */
interface Operator {
  sql: string;
  oneNull: boolean;
  bothNull: boolean;
  /** Compares text (LIKE and regular expressions). */
  textual?: boolean;
}

const OPERATORS: Record<string, Operator> = {
  '==': { sql: '=', oneNull: false, bothNull: true },
  '!=': { sql: '<>', oneNull: true, bothNull: false },
  '<': { sql: '<', oneNull: false, bothNull: false },
  '<=': { sql: '<=', oneNull: false, bothNull: false },
  '>': { sql: '>', oneNull: false, bothNull: false },
  '>=': { sql: '>=', oneNull: false, bothNull: false },
  like: { sql: 'LIKE', oneNull: false, bothNull: true, textual: true },
  'not like': { sql: 'NOT LIKE', oneNull: true, bothNull: false, textual: true },
  ilike: { sql: 'ILIKE', oneNull: false, bothNull: true, textual: true },
  'not ilike': { sql: 'NOT ILIKE', oneNull: true, bothNull: false, textual: true },
  '=~': { sql: '~', oneNull: false, bothNull: true, textual: true },
  '!~': { sql: '!~', oneNull: true, bothNull: false, textual: true },
  '=~*': { sql: '~*', oneNull: false, bothNull: true, textual: true },
  '!~*': { sql: '!~*', oneNull: true, bothNull: false, textual: true },
};

export function compareExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['left', 'right', 'op', 'is_null_comparison_style']);
  const op = text(node, 'op');
  const left = compileExpr(required(node, 'left'), env);
  const rightNode = required(node, 'right');
  if (op === 'in' || op === 'not in') return inExpr(left, rightNode, op === 'not in', env);
  return compareValues(op, left, compileExpr(rightNode, env), env);
}

/** A comparison of two compiled operands (also what `equals()`, `like()` & co. compile to). */
export function compareValues(op: string, left: Expr, right: Expr, env: Env): Expr {
  const operator = Object.hasOwn(OPERATORS, op) ? OPERATORS[op] : undefined;
  if (!operator) throw new HogQLError(`Unsupported comparison: ${op}`);
  if ((op === '==' || op === '!=') && (left.type === 'Null' || right.type === 'Null')) return nullTest(op, left, right);
  const [l, r] = operator.textual ? [asText(left, env), asText(right, env)] : unify(left, right, env);
  const sql = `${l.sql} ${operator.sql} ${r.sql}`;
  return typed(nullSafe(sql, operator, l, r, env), 'Boolean', [l, r], { nullable: false });
}

/** `x = NULL` is `x IS NULL` in HogQL, as `x IS NULL` itself parses to. */
function nullTest(op: string, left: Expr, right: Expr): Expr {
  const operand = left.type === 'Null' ? right : left;
  const bothNull = left.type === 'Null' && right.type === 'Null';
  if (bothNull) return typed(op === '==' ? 'true' : 'false', 'Boolean', [], { nullable: false });
  return typed(`(${operand.sql} IS ${op === '==' ? '' : 'NOT '}NULL)`, 'Boolean', operand, { nullable: false });
}

/**
 * PostHog's NULL rules without wrapping what cannot be NULL (which keeps indexes usable): a side
 * that is a constant cannot be NULL, so only the one-NULL answer applies.
 */
function nullSafe(sql: string, operator: Operator, left: Expr, right: Expr, env: Env): string {
  if (env.clause === 'join' || (!left.nullable && !right.nullable)) return `(${sql})`;
  if (left.literal || right.literal || operator.oneNull === operator.bothNull) return `COALESCE(${sql}, ${operator.oneNull})`;
  if (operator.sql === '=') return `(${left.sql} IS NOT DISTINCT FROM ${right.sql})`;
  if (operator.sql === '<>') return `(${left.sql} IS DISTINCT FROM ${right.sql})`;
  const fallback = operator.bothNull ? `${left.sql} IS NULL AND ${right.sql} IS NULL` : `${left.sql} IS NOT NULL OR ${right.sql} IS NOT NULL`;
  return `COALESCE(${sql}, ${fallback})`;
}

/** `a IS [NOT] DISTINCT FROM b`. */
export function distinctFromExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['left', 'right', 'negated']);
  const [l, r] = unify(compileExpr(required(node, 'left'), env), compileExpr(required(node, 'right'), env), env);
  return typed(`(${l.sql} IS ${node.negated ? 'NOT ' : ''}DISTINCT FROM ${r.sql})`, 'Boolean', [l, r], { nullable: false });
}

/** `x [NOT] BETWEEN low AND high`: false when any side is NULL, as PostHog's ifNull(..., 0). */
export function betweenExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['expr', 'low', 'high', 'negated']);
  const expr = compileExpr(required(node, 'expr'), env);
  const [x, low] = unify(expr, compileExpr(required(node, 'low'), env), env);
  const [, high] = unify(x, compileExpr(required(node, 'high'), env), env);
  const sql = `${x.sql} ${node.negated ? 'NOT ' : ''}BETWEEN ${low.sql} AND ${high.sql}`;
  const nullable = x.nullable || low.nullable || high.nullable;
  return typed(nullable ? `COALESCE(${sql}, false)` : `(${sql})`, 'Boolean', [x, low, high], { nullable: false });
}
