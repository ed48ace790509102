import type { DocumentNode } from 'graphql';

/**
 * `compute` made once per document and operation name. Parsers and planners hand their cached
 * document to every request of the same text, so what is worked out from one holds for them all;
 * documents are held weakly, and go when their cache lets them go.
 */
export function perOperation<T>(compute: (document: DocumentNode, operationName: string | undefined) => T): (document: DocumentNode, operationName: string | undefined) => T {
  const made = new WeakMap<DocumentNode, Map<string, T>>();
  return (document, operationName) => {
    let byName = made.get(document);
    if (!byName) made.set(document, (byName = new Map()));
    const name = operationName ?? '';
    if (byName.has(name)) return byName.get(name)!;
    const value = compute(document, operationName);
    byName.set(name, value);
    return value;
  };
}
