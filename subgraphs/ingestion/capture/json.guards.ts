/** A JSON value's type as Python names it, for DRF's wording ("Expected a dictionary, but got str."). */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}
