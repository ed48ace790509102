import { createGraphQLError } from '@graphql-tools/utils';
import { GraphQLBoolean, isEqualType, isInputObjectType, isScalarType, Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type TypeNode } from 'graphql';

/**
 * The operation's variables with the body's fields added. SOFA is handed a request without a body,
 * and the fields (read and typed by this layer) in its context: it would parse the text again (a
 * 2 MB trace for text_repr: milliseconds and a second copy). They are added as SOFA adds them: a
 * path parameter or a non-empty query parameter of the same name wins, and a value is read by its
 * variable's type as SOFA reads one ({@link sofaValue}). Unlike SOFA, which drops them, a null field
 * is passed as an explicit null: `{"content": null}` means null, as over GraphQL, and a required
 * field sent as null is "may not be null", not "required".
 */
export function withBodyFields(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>, fields: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!fields) return variables;
  const operation = document.definitions[0] as OperationDefinitionNode;
  let merged = variables;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (Object.hasOwn(variables, name) || !Object.hasOwn(fields, name) || fields[name] === undefined) continue;
    if (merged === variables) merged = { ...variables };
    merged[name] = fields[name] === null ? null : read(() => sofaValue(schema, fields[name], definition.type));
  }
  return merged;
}

/** What SOFA cannot read into a variable's type is a 400, in the words of the error. */
function read(value: () => unknown): unknown {
  try {
    return value();
  } catch (error) {
    throw createGraphQLError((error as Error).message || String(error), { extensions: { http: { status: 400 } } });
  }
}

/**
 * A value read by its variable's type as SOFA's `parseVariable` reads a present one: a scalar
 * through its `serialize` (a Boolean from `true` or `'true'`), an input object as it is (or parsed
 * from JSON text), a list item by item.
 */
function sofaValue(schema: GraphQLSchema, value: unknown, type: TypeNode): unknown {
  if (type.kind === Kind.NON_NULL_TYPE) return sofaValue(schema, value, type.type);
  if (type.kind === Kind.LIST_TYPE) return (Array.isArray(value) ? value : [value]).map((item: unknown) => sofaValue(schema, item, type.type));
  const named = schema.getType(type.name.value);
  if (isInputObjectType(named)) return value && typeof value === 'object' ? value : JSON.parse(String(value));
  if (!isScalarType(named)) return value;
  return named.serialize(isEqualType(GraphQLBoolean, named) ? value === 'true' || value === true : value);
}
