import { assertOnly, child, children, isKind, chainOf, text } from '../parse/hogql.ast.js';
import { asNumber, typed } from './hogql.coerce.js';
import type { Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { compileExpr } from './hogql.expressions.js';
import { checkArity } from '../functions/hogql.functions.js';
import { orderItemSql } from './hogql.order.js';
import type { Expr, ExprType, HogQLNode } from '../hogql.types.js';

interface WindowDef {
  args: [number, number | null];
  compile(args: Expr[], name: string): { sql: string; type: ExprType };
}

const ranking = (fn: string, type: ExprType): WindowDef => ({ args: [0, 0], compile: () => ({ sql: `${fn}()`, type }) });
const valued = (fn: string, args: [number, number | null]): WindowDef => ({
  args,
  compile: (values) => ({ sql: `${fn}(${values.map((value) => value.sql).join(', ')})`, type: values[0]!.type }),
});
/** lag/lead(x[, offset[, default]]): PostgreSQL takes the offset as an int. */
const shifted = (fn: string): WindowDef => ({
  args: [1, 3],
  compile: (values) => {
    const [value, offset, fallback] = values;
    const args = [value!.sql, ...(offset ? [`(${offset.sql})::int`] : []), ...(fallback ? [fallback.sql] : [])];
    return { sql: `${fn}(${args.join(', ')})`, type: value!.type };
  },
});
const numeric = (fn: string, type: ExprType | null): WindowDef => ({
  args: [1, 1],
  compile: (values, name) => {
    const value = asNumber(values[0]!, name);
    return { sql: `${fn}(${value.sql})`, type: type ?? (value.type === 'Integer' ? 'Integer' : 'Float') };
  },
});

/**
 * Window functions. lagInFrame/leadInFrame are PostgreSQL's lag/lead, which look past the frame
 * where ClickHouse's stay within it.
 */
const WINDOW_FUNCTIONS: Record<string, WindowDef> = {
  row_number: ranking('row_number', 'Integer'),
  rank: ranking('rank', 'Integer'),
  dense_rank: ranking('dense_rank', 'Integer'),
  percent_rank: ranking('percent_rank', 'Float'),
  cume_dist: ranking('cume_dist', 'Float'),
  ntile: { args: [1, 1], compile: (values) => ({ sql: `ntile((${values[0]!.sql})::int)`, type: 'Integer' }) },
  lagInFrame: shifted('lag'),
  leadInFrame: shifted('lead'),
  lag: shifted('lag'),
  lead: shifted('lead'),
  first_value: valued('first_value', [1, 1]),
  last_value: valued('last_value', [1, 1]),
  nth_value: { args: [2, 2], compile: ([value, index]) => ({ sql: `nth_value(${value!.sql}, (${index!.sql})::int)`, type: value!.type }) },
  min: valued('min', [1, 1]),
  max: valued('max', [1, 1]),
  sum: numeric('sum', null),
  avg: numeric('avg', 'Float'),
  count: { args: [0, 1], compile: (values) => ({ sql: `count(${values[0]?.sql ?? '*'})`, type: 'Integer' }) },
};

export function windowExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['name', 'exprs', 'args', 'over_expr', 'over_identifier']);
  const name = text(node, 'name');
  const def = Object.hasOwn(WINDOW_FUNCTIONS, name) ? WINDOW_FUNCTIONS[name] : undefined;
  if (!def) throw new HogQLError(`Unsupported window function: ${name}`);
  if (children(node, 'args').length > 0) throw new HogQLError(`Parametric window functions are not supported: ${name}`);
  const argNodes = children(node, 'exprs').filter((arg) => !(isKind(arg, 'Field') && chainOf(arg).join('.') === '*' && name === 'count'));
  checkArity('Function', name, argNodes.length, def.args, 'argument');
  const args = argNodes.map((arg) => compileExpr(arg, env));
  const { sql, type } = def.compile(args, name);
  return typed(`${sql} OVER (${windowSpec(node, env)})`, type, args, { nullable: true });
}

function windowSpec(node: HogQLNode, env: Env): string {
  const over = child(node, 'over_expr') ?? namedWindow(node, env);
  assertOnly(over, ['partition_by', 'order_by', 'frame_method', 'frame_start', 'frame_end']);
  const inner: Env = { ...env, clause: 'window' };
  const partition = children(over, 'partition_by').map((item) => compileExpr(item, inner).sql);
  const order = children(over, 'order_by').map((item) => orderItemSql(item, inner));
  return [
    partition.length > 0 ? `PARTITION BY ${partition.join(', ')}` : '',
    order.length > 0 ? `ORDER BY ${order.join(', ')}` : '',
    frameSql(over),
  ]
    .filter(Boolean)
    .join(' ');
}

function namedWindow(node: HogQLNode, env: Env): HogQLNode {
  const name = node.over_identifier;
  const window = typeof name === 'string' ? env.scope.windows.get(name) : undefined;
  if (!window) throw new HogQLError(`Unknown window: ${String(name)}`);
  return window;
}

function frameSql(over: HogQLNode): string {
  const start = child(over, 'frame_start');
  if (!start) return '';
  const method = over.frame_method === 'RANGE' ? 'RANGE' : 'ROWS';
  const end = child(over, 'frame_end');
  return end ? `${method} BETWEEN ${boundSql(start)} AND ${boundSql(end)}` : `${method} ${boundSql(start)}`;
}

/** A frame bound; its offset is a number we read and write back, never text from the query. */
function boundSql(bound: HogQLNode): string {
  assertOnly(bound, ['frame_type', 'frame_value']);
  const type = bound.frame_type;
  if (type === 'CURRENT ROW') return 'CURRENT ROW';
  if (type !== 'PRECEDING' && type !== 'FOLLOWING') throw new HogQLError(`Unsupported window frame: ${String(type)}`);
  const value = bound.frame_value;
  if (value === null || value === undefined) return `UNBOUNDED ${type}`;
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw new HogQLError('A window frame offset must be a whole number');
  return `${value as number} ${type}`;
}
