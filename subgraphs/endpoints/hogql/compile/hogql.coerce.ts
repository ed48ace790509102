import { zoneSql, type Env } from './hogql.context.js';
import { parseDateSql, parseTimestampSql, readDateTimeText } from './hogql.datetime.js';
import { HogQLError } from '../hogql.errors.js';
import type { Expr, ExprType } from '../hogql.types.js';

/**
 * Numbers written as text, as a property holds them ("12", "-3.5", "1e3"). Bounded so that the
 * cast cannot overflow or underflow float8: text outside reads as NULL, never as an error.
 */
const NUMERIC_TEXT = "'^\\s*[-+]?([0-9]{1,200}(\\.[0-9]{0,200})?|\\.[0-9]{1,200})([eE][-+]?[0-9]{1,2})?\\s*$'";
/** Integers that fit bigint whatever their digits. */
const INTEGER_TEXT = "'^\\s*[-+]?[0-9]{1,18}\\s*$'";
const UUID_TEXT = "'^\\s*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\s*$'";

export function typed(sql: string, type: ExprType, from: Expr | Expr[], extra: Partial<Expr> = {}): Expr {
  const sources = Array.isArray(from) ? from : [from];
  return {
    sql,
    type,
    nullable: sources.some((source) => source.nullable),
    aggregate: sources.some((source) => source.aggregate) || undefined,
    ...extra,
  };
}

export function isNumeric(expr: Expr): boolean {
  return expr.type === 'Integer' || expr.type === 'Float';
}

/** SQL: text read as float8, NULL when it is no number. */
export function textToFloatSql(sql: string): string {
  return `(CASE WHEN ${sql} ~ ${NUMERIC_TEXT} THEN (${sql})::float8 END)`;
}

/** SQL: text read as bigint, NULL when it is no integer (ClickHouse's accurateCastOrNull). */
export function textToIntSql(sql: string): string {
  return `(CASE WHEN ${sql} ~ ${INTEGER_TEXT} THEN (${sql})::bigint END)`;
}

export function textToUuidSql(sql: string): string {
  return `(CASE WHEN ${sql} ~ ${UUID_TEXT} THEN btrim(${sql})::uuid END)`;
}

/**
 * An operand of arithmetic or of a numeric aggregation. A property is text: it counts as the number
 * it spells, NULL when it spells none. Other text is refused, as ClickHouse refuses it.
 */
export function asNumber(expr: Expr, what: string): Expr {
  if (isNumeric(expr) || expr.type === 'Null' || expr.type === 'Unknown') return expr;
  if (expr.type === 'Boolean') return typed(`(${expr.sql})::int`, 'Integer', expr);
  if (expr.type === 'String' && expr.property) return typed(textToFloatSql(expr.sql), 'Float', expr, { nullable: true });
  throw new HogQLError(`${what} expects a number, got ${expr.type}`);
}

/** A condition (WHERE, if(), AND): numbers are true when not zero, a property when it reads `true`. */
export function asBoolean(expr: Expr, what: string): Expr {
  if (expr.type === 'Boolean' || expr.type === 'Null') return expr;
  if (isNumeric(expr)) return typed(`(${expr.sql} <> 0)`, 'Boolean', expr);
  if (expr.type === 'String' && expr.property) return typed(`(${expr.sql} = 'true')`, 'Boolean', expr);
  if (expr.type === 'Unknown') return typed(`(${expr.sql})::boolean`, 'Boolean', expr);
  throw new HogQLError(`${what} expects a boolean condition, got ${expr.type}`);
}

/** toString(): text as ClickHouse prints each type; times in the team's zone. */
export function asText(expr: Expr, env: Env): Expr {
  // Text written out by toString() is plain text: a property no longer compares as a number.
  if (expr.type === 'String') return { ...expr, property: undefined, json: undefined };
  return typed(textSql(expr, env), 'String', expr);
}

function textSql(expr: Expr, env: Env): string {
  switch (expr.type) {
    case 'DateTime':
      return `to_char(${expr.sql} AT TIME ZONE ${zoneSql(env)}, 'YYYY-MM-DD HH24:MI:SS.US')`;
    case 'Date':
      return `to_char(${expr.sql}, 'YYYY-MM-DD')`;
    case 'Boolean':
      return `(CASE WHEN ${expr.sql} THEN 'true' ELSE 'false' END)`;
    case 'Null':
      return 'NULL::text';
    default:
      return `(${expr.sql})::text`;
  }
}

/** A DateTime operand: dates at midnight in the team's zone, texts parsed (NULL when no date-time). */
export function asTimestamp(expr: Expr, env: Env, what: string): Expr {
  switch (expr.type) {
    case 'DateTime':
      return expr;
    case 'Date':
      return typed(`((${expr.sql})::timestamp AT TIME ZONE ${zoneSql(env)})`, 'DateTime', expr);
    case 'String':
      return stringToTimestamp(expr, env);
    case 'Integer':
    case 'Float':
      return typed(`to_timestamp(${expr.sql})`, 'DateTime', expr);
    case 'Null':
      return typed('NULL::timestamptz', 'DateTime', expr);
    case 'Unknown':
      return typed(`(${expr.sql})::timestamptz`, 'DateTime', expr);
    default:
      throw new HogQLError(`${what} expects a DateTime, got ${expr.type}`);
  }
}

function stringToTimestamp(expr: Expr, env: Env): Expr {
  const value = expr.literal?.value;
  if (typeof value === 'string') {
    const read = readDateTimeText(value);
    if (!read) return { sql: 'NULL::timestamptz', type: 'DateTime', nullable: true };
    const bound = env.ctx.params.bind(value.trim(), read.zoned ? 'timestamptz' : 'timestamp');
    return typed(read.zoned ? bound : `(${bound} AT TIME ZONE ${zoneSql(env)})`, 'DateTime', expr);
  }
  return typed(parseTimestampSql(expr.sql, env), 'DateTime', expr, { nullable: true });
}

/** A Date operand: times cut to their day in the team's zone, texts parsed (NULL when no date). */
export function asDate(expr: Expr, env: Env, what: string): Expr {
  switch (expr.type) {
    case 'Date':
      return expr;
    case 'DateTime':
      return typed(`(${expr.sql} AT TIME ZONE ${zoneSql(env)})::date`, 'Date', expr);
    case 'String':
      return stringToDate(expr, env);
    case 'Null':
      return typed('NULL::date', 'Date', expr);
    case 'Unknown':
      return typed(`(${expr.sql})::date`, 'Date', expr);
    default:
      throw new HogQLError(`${what} expects a Date, got ${expr.type}`);
  }
}

function stringToDate(expr: Expr, env: Env): Expr {
  const value = expr.literal?.value;
  if (typeof value === 'string') {
    const read = readDateTimeText(value);
    if (!read) return { sql: 'NULL::date', type: 'Date', nullable: true };
    return typed(env.ctx.params.bind(read.date, 'date'), 'Date', expr);
  }
  return typed(parseDateSql(expr.sql), 'Date', expr, { nullable: true });
}

/** SQL: the wall-clock time of a DateTime or Date in the team's zone (a timestamp without zone). */
export function localTimeSql(expr: Expr, env: Env, what: string): string {
  if (expr.type === 'Date') return `(${expr.sql})::timestamp`;
  return `(${asTimestamp(expr, env, what).sql} AT TIME ZONE ${zoneSql(env)})`;
}
