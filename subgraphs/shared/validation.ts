const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id can be a UUID; anything else is "not found" without asking the database. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Size of a JSON value as stored, in bytes. */
export function jsonSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

/** How deeply JSON may nest in any request: far beyond real layouts, well within a stack's reach. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a parsed JSON value nests deeper than `max` levels. Iterative, so that a hostile value
 * nested a million levels deep cannot overflow the stack while being checked.
 */
export function exceedsDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  return jsonProblem(value, max) === 'too_deep';
}

/**
 * What makes a JSON value unstorable, if anything: nesting deeper than `max`, or a NUL character
 * in a string or key (PostgreSQL's text and jsonb cannot hold one). Iterative, like exceedsDepth.
 */
export function jsonProblem(value: unknown, max: number = MAX_JSON_DEPTH): 'too_deep' | 'nul_character' | null {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return 'nul_character';
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return 'too_deep';
    for (const [key, child] of Object.entries(current)) {
      if (key.includes('\u0000')) return 'nul_character';
      pending.push([child, depth + 1]);
    }
  }
  return null;
}
