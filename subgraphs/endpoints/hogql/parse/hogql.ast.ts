import { HogQLError } from '../hogql.errors.js';
import { MAX_DEPTH } from '../hogql.limits.js';
import type { HogQLNode } from '../hogql.types.js';

/** Keys every node may carry whatever its kind: its kind and its position in the text. */
const ALWAYS_ALLOWED = new Set(['node', 'start', 'end']);

export function isNode(value: unknown): value is HogQLNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as HogQLNode).node === 'string';
}

/** Whether a value is a node of that kind (not a type guard: a node that fails it is still a node). */
export function isKind(value: unknown, kind: string): boolean {
  return isNode(value) && value.node === kind;
}

/** A child node, or null when absent. */
export function child(node: HogQLNode, key: string): HogQLNode | null {
  const value = node[key];
  if (value === null || value === undefined) return null;
  if (!isNode(value)) throw new HogQLError(`Unsupported node: ${node.node}.${key}`);
  return value;
}

/** A child node that must be there. */
export function required(node: HogQLNode, key: string): HogQLNode {
  const value = child(node, key);
  if (!value) throw new HogQLError(`Unsupported node: ${node.node} without ${key}`);
  return value;
}

/** A list of child nodes (empty when absent). */
export function children(node: HogQLNode, key: string): HogQLNode[] {
  const value = node[key];
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isNode)) throw new HogQLError(`Unsupported node: ${node.node}.${key}`);
  return value;
}

export function text(node: HogQLNode, key: string): string {
  const value = node[key];
  if (typeof value !== 'string') throw new HogQLError(`Unsupported node: ${node.node} without ${key}`);
  return value;
}

/** A field chain: names (and integer indexes) joined by dots in the query. */
export function chainOf(node: HogQLNode): (string | number)[] {
  const chain = node.chain;
  if (!Array.isArray(chain) || chain.length === 0 || !chain.every((link) => typeof link === 'string' || Number.isInteger(link))) {
    throw new HogQLError('Unsupported node: Field without a chain');
  }
  return chain as (string | number)[];
}

/**
 * Refuses a node that carries anything beyond `allowed`: a clause the parser knows and the
 * compiler does not (PREWHERE, SAMPLE, ARRAY JOIN, ...) must fail, never be silently dropped.
 */
export function assertOnly(node: HogQLNode, allowed: readonly string[]): void {
  for (const [key, value] of Object.entries(node)) {
    if (ALWAYS_ALLOWED.has(key) || allowed.includes(key)) continue;
    if (value === null || value === undefined || value === false) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    throw new HogQLError(`Unsupported HogQL feature: ${node.node}.${key}`);
  }
}

/**
 * Refuses an AST nested deeper than MAX_DEPTH nodes. Iterative, so that checking a hostile tree
 * cannot itself overflow the stack; every recursive walk after it is bounded.
 */
export function assertDepth(root: unknown): void {
  const pending: [unknown, number][] = [[root, 0]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    const nodeDepth = isNode(value) ? depth + 1 : depth;
    if (nodeDepth > MAX_DEPTH) throw new HogQLError(`Query is nested too deeply (more than ${MAX_DEPTH} levels).`);
    for (const item of Object.values(value)) pending.push([item, nodeDepth]);
  }
}

/** Every node of a tree, depth first (the tree has passed assertDepth). */
export function* walk(value: unknown): Generator<HogQLNode> {
  if (Array.isArray(value)) {
    for (const item of value) yield* walk(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  // Plain objects hold nodes too (a SELECT's named windows).
  if (isNode(value)) yield value;
  for (const [key, item] of Object.entries(value)) {
    if (key !== 'start' && key !== 'end') yield* walk(item);
  }
}
