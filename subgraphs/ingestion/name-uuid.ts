import { createHash } from 'node:crypto';

const namespaces = new Map<string, Buffer>();

/**
 * A name-based UUID (RFC 9562 version 5, SHA-1): the same name in the same namespace always gives
 * the same UUID. PostHog derives person ids this way; we also derive the id of an event sent
 * without one, so that a retried batch finds the events it stored before.
 */
export function uuidV5(name: string, namespace: string): string {
  let space = namespaces.get(namespace);
  if (!space) {
    space = Buffer.from(namespace.replace(/-/g, ''), 'hex');
    namespaces.set(namespace, space);
  }
  const hash = createHash('sha1').update(space).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
