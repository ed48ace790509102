import { isDeepStrictEqual } from 'node:util';
import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { createResolversMap, getMetadataStorage } from 'type-graphql';

type Storage = ReturnType<typeof getMetadataStorage>;
type FieldMetadata = NonNullable<Storage['objectTypes'][number]['fields']>[number];
type Roles = readonly unknown[];

/** What `@Authorized(...roles)` checks, synchronously: throws the caller's 401 or 403. */
export type FieldGuard<Context> = (context: Context, roles: Roles) => void;

/**
 * The resolvers of a built type-graphql schema, as `createResolversMap` gives them, but for the
 * {@link propertyFields}: a field that only reads its property has no resolver, and one that reads
 * it behind `@Authorized` has a synchronous one that runs `guard` first.
 *
 * type-graphql gives every field a resolver (a context object and a middleware chain per value), and
 * `@Authorized` makes it an async middleware, so each value is a promise; graphql-jit then calls it
 * with a resolve info of its own and waits on it. A list of twenty records spent more of what it
 * allocated there than in its rows; a page of a hundred projects has 1,100 such values. Without
 * a resolver a compiled query reads the property inline, as type-graphql's `simpleResolvers` does.
 */
export function fieldResolvers<Context>(schema: GraphQLSchema, guard: FieldGuard<Context>): Record<string, Record<string, unknown>> {
  const resolvers = createResolversMap(schema) as Record<string, Record<string, unknown>>;
  for (const [typeName, fields] of propertyFields(schema)) {
    const typeResolvers = resolvers[typeName];
    if (!typeResolvers) continue;
    for (const [field, roles] of fields) {
      if (roles === undefined) delete typeResolvers[field];
      else typeResolvers[field] = guardedRead(field, roles, guard);
    }
  }
  return resolvers;
}

function guardedRead<Context>(field: string, roles: Roles, guard: FieldGuard<Context>): GraphQLFieldResolver<Record<string, unknown>, Context> {
  return (source, _args, context) => {
    guard(context, roles);
    return source[field];
  };
}

/**
 * The fields of a built type-graphql schema that only read their property: no field resolver, no
 * middleware but `@Authorized`, no arguments, and the property named as the field. Returned as type
 * name → field name → the roles `@Authorized` asks (undefined: none). Where two classes could be
 * the type (a stub shares its name), a field counts only if both declare it alike.
 */
export function propertyFields(schema: GraphQLSchema): Map<string, Map<string, Roles | undefined>> {
  const storage = getMetadataStorage();
  const found = new Map<string, Map<string, Roles | undefined>>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const names = Object.keys(type.getFields());
    // Stubs of another subgraph's type share its name: the class built here declares every field.
    const classes = storage.objectTypes.filter(({ name, target }) => name === type.name && names.every((field) => declared(storage, target, field)));
    if (classes.length === 0) continue;
    const fields = new Map<string, Roles | undefined>();
    for (const name of names) {
      const [first, ...others] = classes.map(({ target }) => declared(storage, target, name)!);
      if (readsProperty(storage, first!, name) && others.every((other) => readsProperty(storage, other, name) && isDeepStrictEqual(other.roles, first!.roles))) {
        fields.set(name, first!.roles);
      }
    }
    if (fields.size > 0) found.set(type.name, fields);
  }
  return found;
}

function readsProperty(storage: Storage, field: FieldMetadata, name: string): boolean {
  return (
    field.name === name &&
    !field.middlewares?.length &&
    !field.params?.length &&
    !storage.fieldResolvers.some((resolver) => resolver.methodName === name && resolver.getObjectType?.() === field.target)
  );
}

/** The field as the class or the nearest object type it extends declares it, as type-graphql builds it. */
function declared(storage: Storage, target: Function, name: string): FieldMetadata | undefined {
  for (let type = target; type.prototype !== undefined; type = Object.getPrototypeOf(type) as Function) {
    const metadata = storage.objectTypes.find((objectType) => objectType.target === type);
    if (!metadata) return undefined;
    const field = metadata.fields?.find((candidate) => candidate.schemaName === name);
    if (field) return field;
  }
  return undefined;
}
