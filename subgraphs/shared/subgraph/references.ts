import DataLoader from 'dataloader';
import type { SubgraphContext } from '../context.js';
import type { ReferenceResolver } from './define.js';

/**
 * A reference resolver that loads all representations of one request together: a router that
 * sends twenty references to the same or different entities costs one query, not twenty.
 * `load` gets the distinct ids and returns what the caller may see; the rest resolve to null.
 */
export function batchedReference<K extends string | number, V>(
  key: (reference: Record<string, unknown>) => K,
  load: (ids: readonly K[], context: SubgraphContext) => Promise<Map<K, V>>,
): ReferenceResolver {
  const loaders = new WeakMap<SubgraphContext, DataLoader<K, V | null>>();
  return (reference, context) => {
    let loader = loaders.get(context);
    if (!loader) {
      loader = new DataLoader<K, V | null>(async (ids) => {
        const found = await load(ids, context);
        return ids.map((id) => found.get(id) ?? null);
      });
      loaders.set(context, loader);
    }
    return loader.load(key(reference));
  };
}
