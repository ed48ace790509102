/**
 * Values that only Python literals have (section 3.5.8: a span state string is read with `ast.literal_eval`).
 * JSON parsed by JavaScript cannot tell `1.0` from `1` nor keep integer-like keys in order; the literal reader
 * can, so it produces these wrappers and the JSON writer prints them as Python's `json.dumps` does.
 */

/** A Python float (printed with a decimal point even when integral, e.g. `1.0`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A Python tuple (JSON writes it as a list; hashable, so it may be a dict key). */
export class PyTuple {
  constructor(readonly items: unknown[]) {}
}

/**
 * A Python dict in insertion order. Keys are stored as the strings `json.dumps` would write; `jsonKeysOnly` is
 * false when some key is a tuple, bytes or complex, which `json.dumps` refuses.
 */
export class PyDict {
  constructor(
    readonly entries: [string, unknown][],
    readonly jsonKeysOnly: boolean,
  ) {}
}

/** Values `json.dumps` refuses (set, bytes, complex). */
export class PyOpaque {
  constructor(readonly kind: 'set' | 'bytes' | 'complex') {}
}

/** Raised by the JSON writer for a value `json.dumps` cannot serialise (Python's TypeError). */
export class NotJsonSerializableError extends Error {}
