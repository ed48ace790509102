import { typed } from '../compile/hogql.coerce.js';
import { HogQLError } from '../hogql.errors.js';
import type { Call, FunctionDef, FunctionTable } from './hogql.functions.js';
import { documentOf, jsonKey } from '../compile/hogql.properties.js';
import type { Expr, ExprType } from '../hogql.types.js';

/** The jsonb value at the path given by the arguments after the first (constant names, or indexes from 1). */
function valueAt(call: Call): string {
  const document = documentOf(call.args[0]!);
  if (document === null) throw new HogQLError(`${call.name} expects a JSON document (such as properties) as its first argument`);
  const keys = call.args.slice(1).map((arg) => {
    const key = arg.literal?.value;
    if (typeof key !== 'string' && !Number.isInteger(key)) throw new HogQLError(`${call.name} expects constant keys (names, or indexes from 1)`);
    return jsonKey(key as string | number);
  });
  return `(${document} #> ${call.env.ctx.params.bind(keys, 'text[]')})`;
}

/**
 * JSONExtract<Type>(json, keys...): the value when it is of that JSON type, else ClickHouse's
 * default ('' / 0 / false), never NULL.
 */
function extract(jsonType: string, convert: (value: string) => string, fallback: string, type: ExprType): FunctionDef {
  return {
    args: [1, null],
    compile: (call) => {
      const value = valueAt(call);
      const sql = `COALESCE(CASE WHEN jsonb_typeof(${value}) = '${jsonType}' THEN ${convert(value)} END, ${fallback})`;
      return typed(sql, type, call.args, { nullable: false });
    },
  };
}

const toInteger = (value: string): string => `(CASE WHEN abs((${value})::numeric) < 9.2e18 THEN trunc((${value})::numeric)::bigint END)`;

function raw(call: Call): Expr {
  return typed(`COALESCE((${valueAt(call)})::text, '')`, 'String', call.args, { nullable: false });
}

function has(call: Call): Expr {
  return typed(`(${valueAt(call)} IS NOT NULL)`, 'Boolean', call.args, { nullable: false });
}

/** JSONLength(json, keys...): items of an array or keys of an object, 0 for anything else. */
function length(call: Call): Expr {
  const value = valueAt(call);
  const sql = `(CASE jsonb_typeof(${value}) WHEN 'array' THEN jsonb_array_length(${value}) WHEN 'object' THEN jsonb_array_length(jsonb_path_query_array(${value}, '$.keyvalue()')) ELSE 0 END)::bigint`;
  return typed(sql, 'Integer', call.args, { nullable: false });
}

/** JSON functions (PostHog's functions/clickhouse/json.py) over jsonb documents: properties columns and properties in them. */
export const JSON_FUNCTIONS: FunctionTable = {
  JSONExtractString: extract('string', (value) => `(${value} #>> '{}')`, "''", 'String'),
  JSONExtractInt: extract('number', toInteger, '0', 'Integer'),
  JSONExtractUInt: extract('number', toInteger, '0', 'Integer'),
  JSONExtractFloat: extract('number', (value) => `(${value})::float8`, '0', 'Float'),
  JSONExtractBool: extract('boolean', (value) => `(${value})::boolean`, 'false', 'Boolean'),
  JSONExtractRaw: { args: [1, null], compile: raw },
  JSONHas: { args: [2, null], compile: has },
  JSONLength: { args: [1, null], compile: length },
};
