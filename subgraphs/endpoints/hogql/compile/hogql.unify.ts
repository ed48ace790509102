import { asDate, asNumber, asText, asTimestamp, isNumeric, typed } from './hogql.coerce.js';
import type { Env } from './hogql.context.js';
import { readDateTimeText } from './hogql.datetime.js';
import { HogQLError } from '../hogql.errors.js';
import type { Expr } from '../hogql.types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Brings two operands of a comparison to one type, as ClickHouse converts them:
 * - text (a property, or any String) against a number compares as the number it spells (NULL, so
 *   false, when it spells none);
 * - a property against a boolean compares with the text `true` / `false`;
 * - a DateTime or Date against text reads the text as a date-time in the team's zone (a constant
 *   that is no date-time is an error);
 * - a Date against a DateTime is midnight of that day in the team's zone;
 * - a UUID against text compares as a UUID when the text is one, else as text.
 */
export function unify(left: Expr, right: Expr, env: Env): [Expr, Expr] {
  if (left.type === right.type || left.type === 'Null' || right.type === 'Null') return [left, right];
  if (left.type === 'Unknown' || right.type === 'Unknown') return [left, right];
  const flipped = orderedPair(right, left, env);
  if (flipped) return [flipped[1], flipped[0]];
  const pair = orderedPair(left, right, env);
  if (pair) return pair;
  throw new HogQLError(`Cannot compare ${left.type} with ${right.type}`);
}

/** The conversions where `a` is the side that decides; null when this order has none. */
function orderedPair(a: Expr, b: Expr, env: Env): [Expr, Expr] | null {
  if (isNumeric(a) && isNumeric(b)) return [a, b];
  if (isNumeric(a) && b.type === 'String') return [a, asNumber({ ...b, property: true }, 'comparison')];
  if (isNumeric(a) && b.type === 'Boolean') return [a, asNumber(b, 'comparison')];
  if (a.type === 'Boolean' && b.type === 'String') return [asText(a, env), b];
  if (a.type === 'DateTime' && (b.type === 'String' || b.type === 'Date' || isNumeric(b))) return [a, strictTimestamp(b, env)];
  if (a.type === 'Date' && b.type === 'String') return [a, strictDate(b, env)];
  if (a.type === 'UUID' && b.type === 'String') return uuidPair(a, b, env);
  if (a.type === 'JSON' && b.type === 'String') return [typed(`(${a.sql})::text`, 'String', a), b];
  return null;
}

function strictTimestamp(expr: Expr, env: Env): Expr {
  assertReadable(expr, 'DateTime');
  return asTimestamp(expr, env, 'comparison');
}

function strictDate(expr: Expr, env: Env): Expr {
  assertReadable(expr, 'Date');
  return asDate(expr, env, 'comparison');
}

function assertReadable(expr: Expr, type: string): void {
  const value = expr.literal?.value;
  if (typeof value === 'string' && !readDateTimeText(value)) throw new HogQLError(`Cannot parse '${value}' as a ${type}`);
}

function uuidPair(uuid: Expr, other: Expr, env: Env): [Expr, Expr] {
  const value = other.literal?.value;
  if (typeof value === 'string' && UUID.test(value.trim())) {
    return [uuid, typed(env.ctx.params.bind(value.trim().toLowerCase(), 'uuid'), 'UUID', other)];
  }
  return [typed(`(${uuid.sql})::text`, 'String', uuid), other];
}
