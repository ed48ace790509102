import { asText, typed } from '../compile/hogql.coerce.js';
import { HogQLError } from '../hogql.errors.js';
import type { Call, FunctionDef, FunctionTable } from './hogql.functions.js';
import type { Expr } from '../hogql.types.js';

/** A text argument: text as it is, NULL as text; other types are refused, as ClickHouse refuses them. */
export function textArg(call: Call, index: number): Expr {
  const value = call.args[index]!;
  if (value.type === 'String') return value;
  if (value.type === 'Null' || value.type === 'Unknown') return typed(`(${value.sql})::text`, 'String', value);
  throw new HogQLError(`Function '${call.name}' expects a String as argument ${index + 1}, got ${value.type}`);
}

function integerArg(call: Call, index: number): Expr {
  const value = call.args[index]!;
  if (value.type === 'Integer' || value.type === 'Null' || value.type === 'Unknown') return value;
  throw new HogQLError(`Function '${call.name}' expects an Integer as argument ${index + 1}, got ${value.type}`);
}

/** `fn(text args...)` returning text (or another type). */
function textFunction(fn: string, args: [number, number | null], type: Expr['type'] = 'String'): FunctionDef {
  return {
    args,
    compile: (call) => {
      const values = call.args.map((_, index) => textArg(call, index));
      return typed(`${fn}(${values.map((value) => value.sql).join(', ')})`, type, values);
    },
  };
}

/** concat(): every argument as toString() writes it, NULL as empty text (PostHog wraps each in ifNull(..., '')). */
function concat(call: Call): Expr {
  const parts = call.args.map((arg) => asText(arg, call.env).sql);
  return typed(`concat(${parts.join(', ')})`, 'String', call.args, { nullable: false });
}

/** length(): bytes of text (as ClickHouse's), items of an array. */
function length(call: Call): Expr {
  const value = call.args[0]!;
  if (value.type === 'Array') return typed(`cardinality(${value.sql})`, 'Integer', value);
  return typed(`octet_length(${textArg(call, 0).sql})`, 'Integer', value);
}

/** substring(s, offset[, length]): from 1, a negative offset counting from the end. */
function substring(call: Call): Expr {
  const value = textArg(call, 0);
  const offset = integerArg(call, 1);
  const start = `(CASE WHEN ${offset.sql} < 0 THEN char_length(${value.sql}) + 1 + ${offset.sql} ELSE ${offset.sql} END)`;
  const count = call.args.length === 3 ? `, GREATEST(${integerArg(call, 2).sql}, 0)::int` : '';
  return typed(`substr(${value.sql}, ${start}::int${count})`, 'String', call.args);
}

function trim(fn: string): FunctionDef {
  return textFunction(fn, [1, 2]);
}

function endsWith(call: Call): Expr {
  const [value, suffix] = [textArg(call, 0), textArg(call, 1)];
  return typed(`(right(${value.sql}, char_length(${suffix.sql})) = ${suffix.sql})`, 'Boolean', [value, suffix]);
}

function position(call: Call, fold: boolean): Expr {
  const [haystack, needle] = [textArg(call, 0), textArg(call, 1)].map((value) => (fold ? `lower(${value.sql})` : value.sql));
  return typed(`strpos(${haystack}, ${needle})`, 'Integer', call.args);
}

function emptiness(call: Call, empty: boolean): Expr {
  const value = call.args[0]!;
  const test = value.type === 'Array' ? `cardinality(${value.sql}) = 0` : `${textArg(call, 0).sql} = ''`;
  return typed(`(${empty ? '' : 'NOT '}(${test}))`, 'Boolean', value);
}

function replaceRegexp(call: Call, flags: string): Expr {
  const [value, pattern, replacement] = [0, 1, 2].map((index) => textArg(call, index));
  return typed(`regexp_replace(${value!.sql}, ${pattern!.sql}, ${replacement!.sql}${flags})`, 'String', call.args);
}

/** repeat(s, n): n capped, so that a query cannot build gigabytes of text. */
function repeat(call: Call): Expr {
  const count = integerArg(call, 1);
  return typed(`repeat(${textArg(call, 0).sql}, LEAST(GREATEST(${count.sql}, 0), 1000)::int)`, 'String', call.args);
}

/** String functions (PostHog's functions/clickhouse/strings.py) in PostgreSQL. */
export const STRING_FUNCTIONS: FunctionTable = {
  lower: textFunction('lower', [1, 1]),
  upper: textFunction('upper', [1, 1]),
  length: { args: [1, 1], compile: length },
  lengthUTF8: textFunction('char_length', [1, 1], 'Integer'),
  concat: { args: [1, null], compile: concat },
  substring: { args: [2, 3], compile: substring },
  trim: trim('btrim'),
  trimLeft: trim('ltrim'),
  trimRight: trim('rtrim'),
  replaceAll: textFunction('replace', [3, 3]),
  replace: textFunction('replace', [3, 3]),
  replaceRegexpAll: { args: [3, 3], compile: (call) => replaceRegexp(call, ", 'g'") },
  replaceRegexpOne: { args: [3, 3], compile: (call) => replaceRegexp(call, '') },
  startsWith: textFunction('starts_with', [2, 2], 'Boolean'),
  endsWith: { args: [2, 2], compile: endsWith },
  position: { args: [2, 2], compile: (call) => position(call, false) },
  positionCaseInsensitive: { args: [2, 2], compile: (call) => position(call, true) },
  empty: { args: [1, 1], compile: (call) => emptiness(call, true) },
  notEmpty: { args: [1, 1], compile: (call) => emptiness(call, false) },
  reverse: textFunction('reverse', [1, 1]),
  repeat: { args: [2, 2], compile: repeat },
};
