/** A JSON value's type as Python names it, for DRF's wording ("Expected a dictionary, but got str."). */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/**
 * Whether a text has more than `max` characters, counted as people count them (code points: an
 * emoji is one), not in JavaScript's UTF-16 units.
 */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}

/**
 * A value as JSON text, or the error `tooDeep` makes when it nests too deeply to be written
 * (JSON.stringify recurses: tens of thousands of levels overflow the stack).
 */
export function jsonText(value: unknown, tooDeep: () => Error): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep();
    throw error;
  }
}
