import { asDate, asText, asTimestamp, textToFloatSql, textToIntSql, textToUuidSql, typed } from '../compile/hogql.coerce.js';
import type { Env } from '../compile/hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import type { Call, FunctionDef, FunctionTable } from './hogql.functions.js';
import type { Expr } from '../hogql.types.js';

/**
 * toInt(): PostHog's accurateCastOrNull(x, 'Int64'): text that is no integer, and floats beyond
 * Int64, are NULL; floats are truncated; a DateTime is its Unix time, a Date its day number.
 */
function toInt(call: Call): Expr {
  const value = call.args[0]!;
  switch (value.type) {
    case 'Integer':
    case 'Null':
      return value;
    case 'Float':
      return typed(`(CASE WHEN ${value.sql} > -9.2e18 AND ${value.sql} < 9.2e18 THEN trunc(${value.sql})::bigint END)`, 'Integer', value, { nullable: true });
    case 'Boolean':
      return typed(`(${value.sql})::int::bigint`, 'Integer', value);
    case 'String':
      return typed(textToIntSql(value.sql), 'Integer', value, { nullable: true });
    case 'DateTime':
      return typed(`floor(extract(epoch from ${value.sql}))::bigint`, 'Integer', value);
    case 'Date':
      return typed(`(${value.sql} - date '1970-01-01')::bigint`, 'Integer', value);
    default:
      throw new HogQLError(`${call.name} cannot convert a ${value.type}`);
  }
}

/** toFloat(): accurateCastOrNull(x, 'Float64'); text that is no number is NULL. */
function toFloat(call: Call): Expr {
  const value = call.args[0]!;
  switch (value.type) {
    case 'Float':
    case 'Null':
      return value;
    case 'Integer':
      return typed(`(${value.sql})::float8`, 'Float', value);
    case 'Boolean':
      return typed(`(${value.sql})::int::float8`, 'Float', value);
    case 'String':
      return typed(textToFloatSql(value.sql), 'Float', value, { nullable: true });
    case 'DateTime':
      return typed(`extract(epoch from ${value.sql})::float8`, 'Float', value);
    default:
      throw new HogQLError(`${call.name} cannot convert a ${value.type}`);
  }
}

/** toUUID(): accurateCastOrNull(x, 'UUID'); text that is no UUID is NULL. */
function toUuid(call: Call): Expr {
  const value = call.args[0]!;
  if (value.type === 'UUID' || value.type === 'Null') return value;
  if (value.type !== 'String') throw new HogQLError(`${call.name} cannot convert a ${value.type}`);
  return typed(textToUuidSql(value.sql), 'UUID', value, { nullable: true });
}

/** toBool(): text reads `true`/`false`/`1`/`0` (any case), numbers are true when not zero. */
function toBool(call: Call): Expr {
  const value = call.args[0]!;
  if (value.type === 'Boolean' || value.type === 'Null') return value;
  if (value.type === 'Integer' || value.type === 'Float') return typed(`(${value.sql} <> 0)`, 'Boolean', value);
  if (value.type !== 'String') throw new HogQLError(`${call.name} cannot convert a ${value.type}`);
  const sql = `(CASE lower(btrim(${value.sql})) WHEN 'true' THEN true WHEN '1' THEN true WHEN 'false' THEN false WHEN '0' THEN false END)`;
  return typed(sql, 'Boolean', value, { nullable: true });
}

/** toDateTime(x[, zone]): texts without a zone are read in `zone`, else in the team's. */
function toDateTime(call: Call): Expr {
  return asTimestamp(call.args[0]!, withZone(call), call.name);
}

function withZone(call: Call): Env {
  if (call.args.length < 2) return call.env;
  const zone = call.args[1]!.literal?.value;
  if (typeof zone !== 'string' || !isTimeZone(zone)) throw new HogQLError(`${call.name} expects a time zone name (e.g. 'Europe/Paris') as its second argument`);
  return { ...call.env, ctx: { ...call.env.ctx, timezone: zone } };
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

// Declared apart: in an object literal, a `toString` key takes its contextual type from Object.prototype.
const TO_STRING: FunctionDef = { args: [1, 1], compile: (call) => asText(call.args[0]!, call.env) };

/** Type conversions (PostHog's functions/clickhouse/conversions.py): failures are NULL, never errors. */
export const CONVERSION_FUNCTIONS: FunctionTable = {
  toString: TO_STRING,
  toInt: { args: [1, 1], compile: toInt },
  toFloat: { args: [1, 1], compile: toFloat },
  toUUID: { args: [1, 1], compile: toUuid },
  toBool: { args: [1, 1], compile: toBool },
  toDate: { args: [1, 1], compile: (call) => asDate(call.args[0]!, call.env, call.name) },
  toDateTime: { args: [1, 2], compile: toDateTime },
};
