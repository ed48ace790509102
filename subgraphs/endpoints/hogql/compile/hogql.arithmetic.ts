import { assertOnly, required, text } from '../parse/hogql.ast.js';
import { asNumber, typed } from './hogql.coerce.js';
import { zoneSql, type Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import { compileExpr } from './hogql.expressions.js';
import type { Expr, HogQLNode } from '../hogql.types.js';

export function arithmeticExpr(node: HogQLNode, env: Env): Expr {
  assertOnly(node, ['left', 'right', 'op']);
  const left = compileExpr(required(node, 'left'), env);
  const right = compileExpr(required(node, 'right'), env);
  return arithmetic(text(node, 'op'), left, right, env);
}

/** `a + b` and co. (also what plus(), minus() & co. compile to): time arithmetic first, then numbers. */
export function arithmetic(op: string, left: Expr, right: Expr, env: Env): Expr {
  if (!['+', '-', '*', '/', '%'].includes(op)) throw new HogQLError(`Unsupported arithmetic operator: ${op}`);
  return timeArithmetic(op, left, right, env) ?? numberArithmetic(op, left, right);
}

function timeArithmetic(op: string, left: Expr, right: Expr, env: Env): Expr | null {
  const [time, other] = left.type === 'DateTime' || left.type === 'Date' ? [left, right] : [right, left];
  if (time.type !== 'DateTime' && time.type !== 'Date') {
    if (left.type === 'Interval' && right.type === 'Interval' && (op === '+' || op === '-')) return typed(`(${left.sql} ${op} ${right.sql})`, 'Interval', [left, right]);
    return null;
  }
  if (op !== '+' && op !== '-') throw new HogQLError(`Cannot apply '${op}' to a ${time.type}`);
  if (op === '-' && time === right) throw new HogQLError(`Cannot subtract a ${time.type} from a ${left.type}`);
  if (other.type === time.type && op === '-') return timeDifference(time, other === right ? right : left);
  if (other.type === 'Interval') return shifted(time, op, other, env);
  if (other.type === 'Integer' || other.type === 'Float' || other.type === 'Null') {
    // ClickHouse adds days to a Date and seconds to a DateTime.
    const unit = time.type === 'Date' ? "interval '1 day'" : "interval '1 second'";
    return shifted(time, op, typed(`(${other.sql}) * ${unit}`, 'Interval', other, { wholeDays: time.type === 'Date' }), env);
  }
  throw new HogQLError(`Cannot apply '${op}' to a ${time.type} and a ${other.type}`);
}

/**
 * A time moved by an interval on the wall clock of the team's zone (a day across a change of
 * daylight saving time is a calendar day). A Date moved by whole days stays a Date.
 */
function shifted(time: Expr, op: string, interval: Expr, env: Env): Expr {
  if (time.type === 'Date' && interval.wholeDays) return typed(`((${time.sql}) ${op} ${interval.sql})::date`, 'Date', [time, interval]);
  const zone = zoneSql(env);
  const local = time.type === 'Date' ? `(${time.sql})::timestamp` : `(${time.sql} AT TIME ZONE ${zone})`;
  return typed(`((${local} ${op} ${interval.sql}) AT TIME ZONE ${zone})`, 'DateTime', [time, interval]);
}

/** DateTime - DateTime is seconds; Date - Date is days. */
function timeDifference(left: Expr, right: Expr): Expr {
  if (left.type === 'Date') return typed(`(${left.sql} - ${right.sql})`, 'Integer', [left, right]);
  return typed(`(extract(epoch from ${left.sql}) - extract(epoch from ${right.sql}))`, 'Float', [left, right]);
}

/**
 * Numbers. `/` always divides as floats, as ClickHouse's does; dividing by zero is NULL where
 * ClickHouse answers inf or nan (PostgreSQL would fail the query).
 */
function numberArithmetic(op: string, left: Expr, right: Expr): Expr {
  const l = asNumber(left, `'${op}'`);
  const r = asNumber(right, `'${op}'`);
  const integers = l.type === 'Integer' && r.type === 'Integer';
  const unknown = l.type === 'Unknown' || r.type === 'Unknown';
  if (op === '/') return typed(`((${l.sql})::float8 / NULLIF((${r.sql})::float8, 0))`, 'Float', [l, r], { nullable: true });
  if (op === '%') {
    if (integers) return typed(`(${l.sql} % NULLIF(${r.sql}, 0))`, 'Integer', [l, r], { nullable: true });
    return typed(`mod((${l.sql})::numeric, NULLIF((${r.sql})::numeric, 0))::float8`, 'Float', [l, r], { nullable: true });
  }
  return typed(`(${l.sql} ${op} ${r.sql})`, integers ? 'Integer' : unknown ? 'Unknown' : 'Float', [l, r]);
}
