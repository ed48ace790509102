import { assertOnly, children, chainOf, required, text } from '../parse/hogql.ast.js';
import { arithmeticExpr } from './hogql.arithmetic.js';
import { asBoolean, typed } from './hogql.coerce.js';
import { betweenExpr, compareExpr, distinctFromExpr } from './hogql.compare.js';
import type { Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { fieldExpr } from './hogql.fields.js';
import { callExpr, castExpr } from '../functions/hogql.functions.js';
import { constantValue, literalExpr } from './hogql.literals.js';
import { placeholderExpr } from './hogql.placeholders.js';
import { propertyExpr } from './hogql.properties.js';
import type { Expr, HogQLNode } from '../hogql.types.js';
import { windowExpr } from './hogql.window.js';

type Compiler = (node: HogQLNode, env: Env) => Expr;

/** The node kinds an expression may be; any other kind is refused by name. */
const COMPILERS: Record<string, Compiler> = {
  Constant: constantExpr,
  Field: (node, env) => {
    assertOnly(node, ['chain', 'from_asterisk']);
    return fieldExpr(chainOf(node), env);
  },
  Placeholder: placeholderExpr,
  Alias: inlineAliasExpr,
  Call: callExpr,
  TypeCast: castExpr,
  CompareOperation: compareExpr,
  IsDistinctFrom: distinctFromExpr,
  BetweenExpr: betweenExpr,
  ArithmeticOperation: arithmeticExpr,
  And: (node, env) => logicalExpr(node, env, 'AND'),
  Or: (node, env) => logicalExpr(node, env, 'OR'),
  Not: notExpr,
  Tuple: (node, env) => listItemsExpr(node, env, 'Tuple'),
  Array: (node, env) => listItemsExpr(node, env, 'Array'),
  ArrayAccess: arrayAccessExpr,
  TupleAccess: tupleAccessExpr,
  SelectQuery: subqueryExpr,
  SelectSetQuery: subqueryExpr,
  WindowFunction: windowExpr,
};

/**
 * Compiles one expression node; the tree's depth was checked before, so recursion is bounded, and
 * the budget counts the nodes and the SQL of each, so that the work is too.
 */
export function compileExpr(node: HogQLNode, env: Env): Expr {
  const compile = Object.hasOwn(COMPILERS, node.node) ? COMPILERS[node.node] : undefined;
  if (!compile) throw new HogQLError(`Unsupported node: ${node.node}`);
  env.ctx.budget.node();
  return env.ctx.budget.write(() => compile(node, env));
}

function constantExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['value', 'value_type']);
  return literalExpr(constantValue(node.value, node.value_type), env);
}

/** `(expr AS name)` inside an expression: ClickHouse lets the rest of the query use the name. */
function inlineAliasExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['alias', 'expr', 'hidden']);
  const alias = text(node, 'alias');
  const expr = { ...compileExpr(required(node, 'expr'), env), name: alias };
  env.scope.addAlias(alias, expr);
  return expr;
}

function logicalExpr(node: HogQLNode, env: Env, operator: 'AND' | 'OR'): Expr {
  assertOnly(node, ['exprs']);
  const operands = children(node, 'exprs').map((item) => asBoolean(compileExpr(item, env), operator));
  if (operands.length === 0) throw new HogQLError(`Unsupported node: ${node.node} without operands`);
  return typed(`(${operands.map((operand) => operand.sql).join(` ${operator} `)})`, 'Boolean', operands);
}

function notExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['expr']);
  const operand = asBoolean(compileExpr(required(node, 'expr'), env), 'NOT');
  return typed(`(NOT ${operand.sql})`, 'Boolean', operand);
}

/**
 * `(a, b)` and `[a, b]`: the items stay at hand for IN and has(). On their own, an array is a
 * PostgreSQL array and a tuple a JSON array (PostHog answers both as lists).
 */
function listItemsExpr(node: HogQLNode, env: Env, type: 'Tuple' | 'Array'): Expr {
  assertOnly(node, ['exprs']);
  const items = children(node, 'exprs').map((item) => compileExpr(item, env));
  if (type === 'Array' && items.length > 0 && items.every((item) => item.literal)) {
    return literalExpr(items.map((item) => item.literal!.value), env);
  }
  if (type === 'Tuple') return tupleOf(items);
  return typed(items.length === 0 ? 'ARRAY[]::text[]' : `ARRAY[${items.map((item) => item.sql).join(', ')}]`, type, items, { items });
}

/** A tuple (also `tuple(...)`): its items for IN and tuple access, a JSON array as a value. */
export function tupleOf(items: Expr[]): Expr {
  return typed(`jsonb_build_array(${items.map((item) => item.sql).join(', ')})`, 'Tuple', items, { items });
}

/** `properties['key']` reads a property; `array[1]` an item, counting from 1 (negative: from the end). */
function arrayAccessExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['array', 'property', 'nullish']);
  const array = compileExpr(required(node, 'array'), env);
  const index = compileExpr(required(node, 'property'), env);
  const key = index.literal?.value;
  if ((array.type === 'JSON' || array.json) && (typeof key === 'string' || Number.isInteger(key))) {
    return propertyExpr(array, [key as string | number], env);
  }
  if (array.type !== 'Array') throw new HogQLError(`Cannot index a ${array.type}`);
  if (typeof key === 'number' && key === 0) throw new HogQLError('SQL indexes start from one, not from zero. E.g: array[1]');
  const position = typeof key === 'number' && key < 0 ? `cardinality(${array.sql}) + 1 + ${index.sql}` : index.sql;
  return typed(`(${array.sql})[${position}]`, 'Unknown', [array, index], { nullable: true });
}

/** `tuple.1`: an item of a tuple written out in the query. */
function tupleAccessExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['tuple', 'index', 'nullish']);
  const tuple = compileExpr(required(node, 'tuple'), env);
  const index = node.index;
  const item = typeof index === 'number' && tuple.items ? tuple.items[index - 1] : undefined;
  if (!item) throw new HogQLError('Tuple access is supported on tuples written in the query, with an index from 1 to their length');
  return item;
}

/** A SELECT as a value (one column), or as the right side of IN, or in exists(). */
function subqueryExpr(node: HogQLNode, env: Env): Expr {
  const compiled = env.ctx.compileQuery(node, env.scope.ctes.child());
  if (compiled.columns.length !== 1) throw new HogQLError(`A subquery used as a value must have one column, not ${compiled.columns.length}`);
  return { sql: `(${compiled.sql})`, type: compiled.columns[0]!.type, nullable: true, subquery: true };
}
