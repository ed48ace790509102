import { zone, type PrintEnv, type Printed } from './clickhouse.context.js';
import type { ExprType } from '../hogql.types.js';

/**
 * The conversions of the PostgreSQL compiler (compile/hogql.coerce.ts, hogql.unify.ts) written
 * with ClickHouse's own functions: the same operands convert the same way on both engines. The
 * query was compiled for PostgreSQL first, which refused whatever cannot convert.
 */

export function typed(sql: string, type: ExprType, from: Printed | Printed[], extra: Partial<Printed> = {}): Printed {
  const sources = Array.isArray(from) ? from : [from];
  return { sql, type, nullable: sources.some((source) => source.nullable), aggregate: sources.some((source) => source.aggregate) || undefined, ...extra };
}

export function isNumeric(expr: Printed): boolean {
  return expr.type === 'Integer' || expr.type === 'Float';
}

/** Arithmetic's and numeric aggregations' operand: a property counts as the number it spells, NULL when none. */
export function asNumber(expr: Printed): Printed {
  if (isNumeric(expr) || expr.type === 'Null' || expr.type === 'Unknown') return expr;
  if (expr.type === 'Boolean') return typed(`toInt64(${expr.sql})`, 'Integer', expr);
  return typed(`toFloat64OrNull(${expr.sql})`, 'Float', expr, { nullable: true });
}

/** A condition: numbers are true when not zero, a property when it reads `true`. */
export function asBoolean(expr: Printed): Printed {
  if (expr.type === 'Boolean' || expr.type === 'Null') return expr;
  if (isNumeric(expr)) return typed(`(${expr.sql} != 0)`, 'Boolean', expr);
  if (expr.type === 'String') return typed(`(${expr.sql} = 'true')`, 'Boolean', expr);
  return typed(`toBool(${expr.sql})`, 'Boolean', expr);
}

/** toString(): text as ClickHouse prints each type, times in the team's zone, booleans `true`/`false`. */
export function asText(expr: Printed, env: PrintEnv): Printed {
  if (expr.type === 'String') return { ...expr, property: undefined, document: undefined };
  if (expr.type === 'Null') return typed('CAST(NULL, \'Nullable(String)\')', 'String', expr);
  if (expr.type === 'DateTime') return typed(`toString(toTimeZone(${expr.sql}, ${zone(env)}))`, 'String', expr);
  if (expr.type === 'Boolean') return typed(`if(${expr.sql}, 'true', 'false')`, 'String', expr);
  return typed(`toString(${expr.sql})`, 'String', expr);
}

/** A DateTime operand: a Date at midnight in the team's zone, text read as a date-time in it. */
export function asTimestamp(expr: Printed, env: PrintEnv): Printed {
  switch (expr.type) {
    case 'DateTime':
      return expr;
    case 'Date':
      return typed(`toDateTime64(${expr.sql}, 6, ${zone(env)})`, 'DateTime', expr);
    case 'Integer':
    case 'Float':
      return typed(`toDateTime64(${expr.sql}, 6, 'UTC')`, 'DateTime', expr);
    case 'Null':
      return typed("CAST(NULL, 'Nullable(DateTime64(6, \\'UTC\\'))')", 'DateTime', expr);
    default:
      return typed(`parseDateTime64BestEffortOrNull(${expr.sql}, 6, ${zone(env)})`, 'DateTime', expr, { nullable: true });
  }
}

/** A Date operand: a time cut to its day in the team's zone, text read as a date. */
export function asDate(expr: Printed, env: PrintEnv): Printed {
  switch (expr.type) {
    case 'Date':
      return expr;
    case 'DateTime':
      return typed(`toDate(${expr.sql}, ${zone(env)})`, 'Date', expr);
    case 'Null':
      return typed("CAST(NULL, 'Nullable(Date)')", 'Date', expr);
    default:
      return typed(`toDate(parseDateTime64BestEffortOrNull(${expr.sql}, 6, ${zone(env)}))`, 'Date', expr, { nullable: true });
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Two operands of a comparison brought to one type, as compile/hogql.unify.ts does. */
export function unify(left: Printed, right: Printed, env: PrintEnv): [Printed, Printed] {
  if (left.type === right.type || left.type === 'Null' || right.type === 'Null' || left.type === 'Unknown' || right.type === 'Unknown') return [left, right];
  const flipped = orderedPair(right, left, env);
  if (flipped) return [flipped[1], flipped[0]];
  return orderedPair(left, right, env) ?? [left, right];
}

function orderedPair(a: Printed, b: Printed, env: PrintEnv): [Printed, Printed] | null {
  if (isNumeric(a) && isNumeric(b)) return [a, b];
  if (isNumeric(a) && (b.type === 'String' || b.type === 'Boolean')) return [a, asNumber(b)];
  if (a.type === 'Boolean' && b.type === 'String') return [asText(a, env), b];
  if (a.type === 'DateTime' && (b.type === 'String' || b.type === 'Date' || isNumeric(b))) return [a, asTimestamp(b, env)];
  if (a.type === 'Date' && b.type === 'String') return [a, asDate(b, env)];
  if (a.type === 'UUID' && b.type === 'String') {
    const value = b.literal?.value;
    if (typeof value === 'string' && UUID.test(value.trim())) return [a, typed(`toUUID(${env.ctx.params.bind(value.trim().toLowerCase(), 'String')})`, 'UUID', b)];
    return [typed(`toString(${a.sql})`, 'String', a), b];
  }
  if (a.type === 'JSON' && b.type === 'String') return [typed(a.sql, 'String', a), b];
  return null;
}
