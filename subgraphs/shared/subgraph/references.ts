import DataLoader from 'dataloader';
import { isObjectType, Kind, type GraphQLResolveInfo, type NamedTypeNode, type SelectionSetNode } from 'graphql';
import type { SubgraphContext } from './context.js';
import type { ReferenceResolver } from './define.js';

/**
 * A reference resolver that loads all representations of one request together: a router that
 * sends twenty references to the same or different entities costs one query, not twenty.
 * `load` gets the distinct ids and the fields the router selects of the entity (so that it can
 * leave out what nobody reads), and returns what the caller may see; the rest resolve to null.
 */
export function batchedReference<K extends string | number, V>(
  key: (reference: Record<string, unknown>) => K,
  load: (ids: readonly K[], context: SubgraphContext, fields: ReadonlySet<string>) => Promise<Map<K, V>>,
): ReferenceResolver {
  // One loader per request and `_entities` field: its references share one selection, walked once.
  const loaders = new WeakMap<SubgraphContext, WeakMap<GraphQLResolveInfo['fieldNodes'], DataLoader<K, V | null>>>();
  return (reference, context, info) => {
    let byField = loaders.get(context);
    if (!byField) loaders.set(context, (byField = new WeakMap()));
    let loader = byField.get(info.fieldNodes);
    if (!loader) {
      const fields = selectedFields(info, String(reference.__typename));
      loader = new DataLoader<K, V | null>(async (ids) => {
        const found = await load(ids, context, fields);
        return ids.map((id) => found.get(id) ?? null);
      });
      byField.set(info.fieldNodes, loader);
    }
    return loader.load(key(reference));
  };
}

/**
 * The fields that may be selected of `typeName` under the field being resolved (`_entities`),
 * through inline fragments and named ones; a nested selection counts as its field's name. Only
 * fragments on another object type are left out: one on an interface or union may apply.
 */
export function selectedFields(info: GraphQLResolveInfo, typeName: string): Set<string> {
  const fields = new Set<string>();
  const applies = (condition: NamedTypeNode | undefined) => {
    if (!condition || condition.name.value === typeName) return true;
    return !isObjectType(info.schema.getType(condition.name.value));
  };
  const visit = (selectionSet: SelectionSetNode | undefined) => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.FIELD) fields.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(selection.typeCondition)) visit(selection.selectionSet);
      } else {
        const fragment = info.fragments[selection.name.value];
        if (fragment && applies(fragment.typeCondition)) visit(fragment.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return fields;
}
