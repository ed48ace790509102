import { assertDepth, assertOnly, chainOf, isKind, required, walk } from '../parse/hogql.ast.js';
import { asTimestamp } from './hogql.coerce.js';
import type { Env } from './hogql.context.js';
import { readDateTimeText } from './hogql.datetime.js';
import { HogQLError } from '../hogql.errors.js';
import { arrayCast, literalExpr } from './hogql.literals.js';
import type { Expr, HogQLNode, VariableValue } from '../hogql.types.js';

/** The code name of a placeholder: `{name}` and `{variables.name}` both name `name`. */
export function placeholderName(node: HogQLNode): string {
  assertOnly(node, ['expr']);
  const expr = required(node, 'expr');
  const chain = isKind(expr, 'Field') ? chainOf(expr) : [];
  if (chain.length === 1 && typeof chain[0] === 'string') return chain[0];
  if (chain.length === 2 && chain[0] === 'variables' && typeof chain[1] === 'string') return chain[1];
  throw new HogQLError('Unsupported placeholder: use {name} or {variables.name}');
}

/** The code names of the placeholders a query uses, in the order the text first uses them. */
export function placeholdersOf(ast: HogQLNode): string[] {
  assertDepth(ast);
  const found = [...walk(ast)].filter((node) => node.node === 'Placeholder').map((node, index) => ({ name: placeholderName(node), at: offsetOf(node) ?? index }));
  found.sort((a, b) => a.at - b.at);
  return [...new Set(found.map((placeholder) => placeholder.name))];
}

function offsetOf(node: HogQLNode): number | undefined {
  const offset = (node.start as { offset?: unknown } | undefined)?.offset;
  return typeof offset === 'number' ? offset : undefined;
}

/** A placeholder's value, checked against its declared type (or the type its JavaScript value has). */
export function variableValue(name: string, variables: Record<string, VariableValue>): unknown {
  const variable = Object.hasOwn(variables, name) ? variables[name] : undefined;
  if (!variable || variable.value === undefined) throw new HogQLError(`Required variable '${name}' not provided`);
  const { value } = variable;
  if (value === null) return null;
  const type = variable.type ?? typeOfValue(name, value);
  if (!fits(type, value)) throw new HogQLError(`Variable '${name}' must be a ${type}, got ${describe(value)}`);
  if (type === 'List') assertOneType(name, value as unknown[]);
  return value;
}

export function placeholderExpr(node: HogQLNode, env: Env): Expr {
  const name = placeholderName(node);
  const value = variableValue(name, env.ctx.variables);
  const expr = literalExpr(value, env);
  // A Date variable is a point in time: a text without a zone is a time in the team's zone.
  if (env.ctx.variables[name]!.type === 'Date' && typeof value === 'string') return { ...asTimestamp(expr, env, name), literal: expr.literal };
  return expr;
}

type VariableType = NonNullable<VariableValue['type']>;

function assertOneType(name: string, values: unknown[]): void {
  try {
    arrayCast(values);
  } catch {
    throw new HogQLError(`Variable '${name}' must be a list of values of one type (strings, numbers or booleans)`);
  }
}

function typeOfValue(name: string, value: unknown): VariableType {
  if (typeof value === 'string') return 'String';
  if (typeof value === 'number') return 'Number';
  if (typeof value === 'boolean') return 'Boolean';
  if (Array.isArray(value)) return 'List';
  if (value instanceof Date) return 'Date';
  throw new HogQLError(`Variable '${name}' must be a string, number, boolean, date or list`);
}

function fits(type: VariableType, value: unknown): boolean {
  switch (type) {
    case 'String':
      return typeof value === 'string';
    case 'Number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'Boolean':
      return typeof value === 'boolean';
    case 'List':
      return Array.isArray(value) && value.every((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item));
    case 'Date':
      return (value instanceof Date && !Number.isNaN(value.getTime())) || (typeof value === 'string' && readDateTimeText(value) !== null);
    default:
      return false;
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `a ${typeof value}`;
}
