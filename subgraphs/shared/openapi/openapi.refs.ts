import type { OpenApiObject } from './openapi.errors.js';

/**
 * The document with every `$ref` that has siblings (a `description` beside it, as GraphQL
 * descriptions of fields give) wrapped in `allOf`: OpenAPI 3.0 ignores a reference's siblings,
 * and validators reject them.
 */
export function wrapRefSiblings<T>(node: T): T {
  if (Array.isArray(node)) return node.map(wrapRefSiblings) as T;
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => [key, wrapRefSiblings(value)] as const);
  const object = Object.fromEntries(entries) as OpenApiObject;
  if (typeof object.$ref !== 'string' || entries.length === 1) return object as T;
  const { $ref, ...siblings } = object;
  return { allOf: [{ $ref }], ...siblings } as T;
}

/** The local references of a document that point at nothing (a generator's defect: it fails loudly). */
export function danglingRefs(document: OpenApiObject): string[] {
  const dangling = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const ref = (node as OpenApiObject).$ref;
    if (typeof ref === 'string' && resolvePointer(document, ref) === undefined) dangling.add(ref);
    Object.values(node).forEach(visit);
  };
  visit(document);
  return [...dangling].sort();
}

function resolvePointer(document: OpenApiObject, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, token) => (node && typeof node === 'object' ? (node as OpenApiObject)[token] : undefined), document);
}
