import { getMetadataStorage } from 'type-graphql';
import type { RequiredScope } from '../subgraphs/shared/auth/scopes.js';

/**
 * The scopes each root field needs, by `<operation>.<field>` (`mutation.create_project`), as its
 * `@Authorized` gives them: read from type-graphql's metadata of the subgraphs this process has
 * loaded (none loaded: an empty map).
 */
export function rootFieldScopes(): Map<string, readonly RequiredScope[]> {
  const storage = getMetadataStorage();
  const scopes = new Map<string, readonly RequiredScope[]>();
  const kinds = [
    ['query', storage.queries],
    ['mutation', storage.mutations],
    ['subscription', storage.subscriptions],
  ] as const;
  for (const [kind, resolvers] of kinds) {
    for (const resolver of resolvers) {
      const authorized = storage.authorizedFields.find((field) => field.target === resolver.target && field.fieldName === resolver.methodName);
      if (authorized) scopes.set(`${kind}.${resolver.schemaName}`, authorized.roles as RequiredScope[]);
    }
  }
  return scopes;
}
