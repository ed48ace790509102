import { getNamedType, GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLString, isListType, isNonNullType, type GraphQLArgument, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import { ValidationError } from '../subgraphs/shared/errors.js';
import { drfBoolean, drfInteger } from '../subgraphs/shared/validation.js';

/** A decimal number as Python's float() reads one (ASCII digits, `_` between them); not `inf` or `nan`. */
const DECIMAL = /^[ \t\n\r\f\v]*[-+]?(\d+(_\d+)*(\.(\d+(_\d+)*)?)?|\.\d+(_\d+)*)(e[-+]?\d+(_\d+)*)?[ \t\n\r\f\v]*$/i;

/**
 * A REST body's scalar fields in the types of the operation's arguments, as Django REST framework
 * reads them: booleans from `true`/`"yes"`/`1`…, integers from numbers or digit strings, strings
 * from strings or numbers. Anything else is a 400 on the field, where SOFA would silently turn
 * `"maybe"` into false. Returns the body to send (the same object when nothing changed).
 */
export function typedBody(schema: GraphQLSchema, field: string, body: Record<string, unknown>, pathParams: string[] = []): Record<string, unknown> {
  let typed = body;
  for (const arg of operationArgs(schema, field)) {
    // Path parameters win over the body (SOFA's rule): a body field of that name is not read.
    if (pathParams.includes(arg.name) || !(arg.name in body) || body[arg.name] === null || body[arg.name] === undefined) continue;
    const value = coerce(arg.name, arg.type, body[arg.name]);
    if (value !== body[arg.name]) {
      if (typed === body) typed = { ...body };
      typed[arg.name] = value;
    }
  }
  return typed;
}

/**
 * A query string's boolean and number arguments read the same way, and written as SOFA reads them
 * (it takes only `true` as true, and answers a non-number with graphql's wording and no field):
 * `?debug=maybe` or `?limit=abc` is a 400 on that parameter.
 */
export function typedQuery(schema: GraphQLSchema, field: string, params: URLSearchParams): URLSearchParams {
  for (const arg of operationArgs(schema, field)) {
    const value = params.get(arg.name);
    const named = getNamedType(arg.type);
    if (value === null || isListType(isNonNullType(arg.type) ? arg.type.ofType : arg.type)) continue;
    if (named === GraphQLBoolean || named === GraphQLInt || named === GraphQLFloat) params.set(arg.name, String(coerce(arg.name, arg.type, value)));
  }
  return params;
}

function operationArgs(schema: GraphQLSchema, field: string): readonly GraphQLArgument[] {
  const [operation, name] = field.split('.') as ['Query' | 'Mutation', string];
  const root = operation === 'Query' ? schema.getQueryType() : schema.getMutationType();
  return root?.getFields()[name]?.args ?? [];
}

/** `value` in `type`, or a 400 on `attr` (a list's element named as DRF names it: `trace_ids__0`). */
function coerce(attr: string, type: GraphQLInputType, value: unknown): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (!Array.isArray(value)) throw new ValidationError(`Expected a list of items but got type "${typeName(value)}".`, attr, 'not_a_list');
    let changed = false;
    const items = value.map((item, index) => {
      const coerced = item === null ? item : coerce(`${attr}__${index}`, inner.ofType, item);
      changed ||= coerced !== item;
      return coerced;
    });
    return changed ? items : value;
  }
  const named = getNamedType(inner);
  if (named === GraphQLBoolean) {
    const boolean = drfBoolean(value);
    if (boolean === undefined) throw new ValidationError('Must be a valid boolean.', attr);
    return boolean;
  }
  if (named === GraphQLInt) {
    const number = drfInteger(value);
    if (number === undefined) throw new ValidationError('A valid integer is required.', attr);
    if (Math.abs(number) > 2_147_483_647) throw new ValidationError('Ensure this value is a 32-bit integer.', attr, 'max_value');
    return number;
  }
  if (named === GraphQLFloat) {
    // Python's float() reads decimals only: Number('0x10') would be 16 where DRF refuses it. Values
    // that are not finite are refused on purpose: GraphQL's Float has none.
    const number = typeof value === 'string' && DECIMAL.test(value) ? Number(value.replaceAll('_', '')) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) throw new ValidationError('A valid number is required.', attr);
    return number;
  }
  if (named === GraphQLString || named === GraphQLID) {
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value !== 'string') throw new ValidationError('Not a valid string.', attr);
    return value;
  }
  return value;
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value === 'object' ? 'dict' : typeof value;
}
