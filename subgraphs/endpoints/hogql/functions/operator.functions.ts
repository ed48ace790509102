import { arithmetic } from '../compile/hogql.arithmetic.js';
import { asBoolean, typed } from '../compile/hogql.coerce.js';
import { compareValues } from '../compile/hogql.compare.js';
import { HogQLError } from '../hogql.errors.js';
import { tupleOf } from '../compile/hogql.expressions.js';
import type { Call, FunctionDef, FunctionTable } from './hogql.functions.js';
import type { Expr } from '../hogql.types.js';
import { inValues } from '../compile/hogql.in.js';

const compare = (op: string): FunctionDef => ({ args: [2, 2], compile: (call) => compareValues(op, call.args[0]!, call.args[1]!, call.env) });
const arithmeticOf = (op: string): FunctionDef => ({ args: [2, 2], compile: (call) => arithmetic(op, call.args[0]!, call.args[1]!, call.env) });

function logical(call: Call, operator: 'AND' | 'OR'): Expr {
  const operands = call.args.map((arg) => asBoolean(arg, call.name));
  return typed(`(${operands.map((operand) => operand.sql).join(` ${operator} `)})`, 'Boolean', operands);
}

/** has(array, x): x is among the items of an array (written out, a list variable, or an array value). */
function has(call: Call): Expr {
  const [array, value] = call.args as [Expr, Expr];
  if (!array.items && array.type !== 'Array' && array.type !== 'Unknown') throw new HogQLError(`Function '${call.name}' expects an array as its first argument, got ${array.type}`);
  return inValues(value, array, false, call.env);
}

/** exists(SELECT ...). */
function exists(call: Call): Expr {
  const subquery = call.args[0]!;
  if (!subquery.subquery) throw new HogQLError(`Function '${call.name}' expects a subquery`);
  return typed(`EXISTS ${subquery.sql}`, 'Boolean', [], { nullable: false });
}

/**
 * The function spellings of operators, which PostHog prints HogQL with (`equals(a, b)`,
 * `plus(a, 1)`) and which a query may therefore use too. Each compiles exactly as its operator.
 */
export const OPERATOR_FUNCTIONS: FunctionTable = {
  equals: compare('=='),
  notEquals: compare('!='),
  less: compare('<'),
  lessOrEquals: compare('<='),
  greater: compare('>'),
  greaterOrEquals: compare('>='),
  like: compare('like'),
  notLike: compare('not like'),
  ilike: compare('ilike'),
  notILike: compare('not ilike'),
  match: compare('=~'),
  plus: arithmeticOf('+'),
  minus: arithmeticOf('-'),
  multiply: arithmeticOf('*'),
  divide: arithmeticOf('/'),
  modulo: arithmeticOf('%'),
  and: { args: [2, null], compile: (call) => logical(call, 'AND') },
  or: { args: [2, null], compile: (call) => logical(call, 'OR') },
  not: { args: [1, 1], compile: (call) => typed(`(NOT ${asBoolean(call.args[0]!, 'not').sql})`, 'Boolean', call.args) },
  in: { args: [2, 2], compile: (call) => inValues(call.args[0]!, call.args[1]!, false, call.env) },
  notIn: { args: [2, 2], compile: (call) => inValues(call.args[0]!, call.args[1]!, true, call.env) },
  has: { args: [2, 2], compile: has },
  tuple: { args: [1, null], compile: (call) => tupleOf(call.args) },
  exists: { args: [1, 1], compile: exists },
};
