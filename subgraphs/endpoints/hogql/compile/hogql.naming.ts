import { children, child, chainOf, isKind } from '../parse/hogql.ast.js';
import { constantValue } from './hogql.literals.js';
import { placeholderName, variableValue } from './hogql.placeholders.js';
import type { Expr, HogQLNode, VariableValue } from '../hogql.types.js';

/**
 * The name PostHog gives a result column: its alias; for a field, the field's name (`event` for
 * `e.event`, `$browser` for `properties.$browser`, `a__b` for `properties.a.b`); for anything else,
 * the expression printed back as HogQL, as PostHog prints it (`count()`, `plus(a, 1)`).
 */
export function columnName(node: HogQLNode, expr: Expr, variables: Record<string, VariableValue>): string {
  if (isKind(node, 'Alias') && typeof node.alias === 'string') return node.alias;
  if (expr.name && (isKind(node, 'Field') || isKind(node, 'ArrayAccess'))) return expr.name;
  return printHogQL(node, variables);
}

const ARITHMETIC: Record<string, string> = { '+': 'plus', '-': 'minus', '*': 'multiply', '/': 'divide', '%': 'modulo' };

/** PostHog prints comparisons as functions; `!~` is printed as not(match(...)). */
const COMPARISONS: Record<string, string> = {
  '==': 'equals',
  '!=': 'notEquals',
  '<': 'less',
  '<=': 'lessOrEquals',
  '>': 'greater',
  '>=': 'greaterOrEquals',
  like: 'like',
  'not like': 'notLike',
  ilike: 'ilike',
  'not ilike': 'notILike',
  in: 'in',
  'not in': 'notIn',
  '=~': 'match',
};

type Printer = (node: HogQLNode, print: (node: HogQLNode | null) => string, variables: Record<string, VariableValue>) => string;

const list = (nodes: HogQLNode[], print: (node: HogQLNode | null) => string): string => nodes.map(print).join(', ');

const PRINTERS: Record<string, Printer> = {
  Constant: (node) => printValue(constantValue(node.value, node.value_type)),
  Placeholder: (node, _print, variables) => printValue(variableValue(placeholderName(node), variables)),
  Field: (node) => chainOf(node).map(identifier).join('.'),
  Alias: (node, print) => `${print(child(node, 'expr'))} AS ${identifier(String(node.alias))}`,
  Call: (node, print) => {
    const params = node.params ? `(${list(children(node, 'params'), print)})` : '';
    return `${String(node.name)}${params}(${node.distinct === true ? 'DISTINCT ' : ''}${list(children(node, 'args'), print)})`;
  },
  ArithmeticOperation: (node, print) => `${named(ARITHMETIC, String(node.op))}(${print(child(node, 'left'))}, ${print(child(node, 'right'))})`,
  CompareOperation: (node, print) => printComparison(String(node.op), print(child(node, 'left')), print(child(node, 'right'))),
  And: (node, print) => `and(${list(children(node, 'exprs'), print)})`,
  Or: (node, print) => `or(${list(children(node, 'exprs'), print)})`,
  Not: (node, print) => `not(${print(child(node, 'expr'))})`,
  Tuple: (node, print) => `tuple(${list(children(node, 'exprs'), print)})`,
  Array: (node, print) => `[${list(children(node, 'exprs'), print)}]`,
  ArrayAccess: (node, print) => `${print(child(node, 'array'))}[${print(child(node, 'property'))}]`,
  TupleAccess: (node, print) => `${print(child(node, 'tuple'))}.${String(node.index)}`,
  BetweenExpr: (node, print) =>
    `${print(child(node, 'expr'))}${node.negated ? ' NOT' : ''} BETWEEN ${print(child(node, 'low'))} AND ${print(child(node, 'high'))}`,
  IsDistinctFrom: (node, print) => `${print(child(node, 'left'))} IS ${node.negated ? 'NOT ' : ''}DISTINCT FROM ${print(child(node, 'right'))}`,
  TypeCast: (node, print) => `CAST(${print(child(node, 'expr'))} AS ${String(node.type_name)})`,
  WindowFunction: (node, print) => `${String(node.name)}(${list(children(node, 'exprs'), print)}) OVER ${node.over_identifier ?? '(...)'}`,
  SelectQuery: () => '(SELECT ...)',
  SelectSetQuery: () => '(SELECT ...)',
};

function printHogQL(node: HogQLNode, variables: Record<string, VariableValue>): string {
  const print = (inner: HogQLNode | null): string => (inner ? printHogQL(inner, variables) : '');
  const printer = Object.hasOwn(PRINTERS, node.node) ? PRINTERS[node.node] : undefined;
  return printer ? printer(node, print, variables) : node.node;
}

function printComparison(op: string, left: string, right: string): string {
  if (op === '!~') return `not(match(${left}, ${right}))`;
  if (op === '=~*') return `match(${left}, concat('(?i)', ${right}))`;
  if (op === '!~*') return `not(match(${left}, concat('(?i)', ${right})))`;
  return `${named(COMPARISONS, op)}(${left}, ${right})`;
}

function named(names: Record<string, string>, op: string): string {
  return Object.hasOwn(names, op) ? names[op]! : op;
}

/** As PostHog's escape_hogql_identifier: bare when simple, else in backquotes. */
function identifier(name: string | number): string {
  if (typeof name === 'number' || name === '*' || /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) return String(name);
  return `\`${escape(name).replace(/`/g, '``')}\``;
}

const ESCAPES: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\r': '\\r', '\n': '\\n', '\t': '\\t', '\0': '\\0', '\x07': '\\a', '\v': '\\v', '\\': '\\\\' };

function escape(text: string): string {
  return Array.from(text, (char) => ESCAPES[char] ?? char).join('');
}

/** As PostHog's escape_hogql_string. */
function printValue(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : value === Infinity ? 'Inf' : value === -Infinity ? '-Inf' : String(value);
  if (Array.isArray(value)) return `[${value.map(printValue).join(', ')}]`;
  if (value instanceof Date) return `toDateTime(${printValue(value.toISOString())})`;
  return `'${escape(String(value)).replace(/'/g, "\\'")}'`;
}
