/** Options of the text representation: validation and defaults (management API option table). */
import { isObject } from './json.guards.js';
import { pyTypeName } from './python.format.js';
import { TextReprInputError } from './text-repr.errors.js';
import { drfBoolean, drfInteger } from '../../shared/validation.js';

export interface TextReprOptions {
  /** Maximum length of the whole text in code points; longer texts are sampled (default 2,000,000). */
  max_length: number;
  /** Middle-truncate long content blocks (default true). */
  truncated: boolean;
  /** Code points kept around a truncated block: half at the start, half at the end (default 1000). */
  truncate_buffer: number;
  /** Interactive `<<<...>>>` markers (true, default) or plain-text notes (false). */
  include_markers: boolean;
  /** Trace tree as one summary line per node (default false). */
  collapsed: boolean;
  /** Draw the TRACE HIERARCHY tree of traces (default true). */
  include_hierarchy: boolean;
  /** Deepest tree level drawn: nodes at depth d (roots 0) are drawn iff d < max_depth; null = unlimited (default). */
  max_depth: number | null;
  /** Tool lists longer than this collapse (default 5). */
  tools_collapse_threshold: number;
  /** Prefix every line with `L<n>: ` (default false). */
  include_line_numbers: boolean;
}

export const DEFAULT_TEXT_REPR_OPTIONS: Readonly<TextReprOptions> = Object.freeze({
  max_length: 2_000_000,
  truncated: true,
  truncate_buffer: 1000,
  include_markers: true,
  collapsed: false,
  include_hierarchy: true,
  max_depth: null,
  tools_collapse_threshold: 5,
  include_line_numbers: false,
});

type OptionKind = { type: 'integer'; min: number; nullable?: boolean } | { type: 'boolean' };

/** Declared order, which decides which error is reported first (DRF validates fields in this order). */
const OPTION_FIELDS: [keyof TextReprOptions | 'include_metadata', OptionKind][] = [
  ['max_length', { type: 'integer', min: 1 }],
  ['truncated', { type: 'boolean' }],
  ['truncate_buffer', { type: 'integer', min: 0 }],
  ['include_markers', { type: 'boolean' }],
  ['collapsed', { type: 'boolean' }],
  // Accepted (and type-checked) for compatibility, and ignored: the response always has its metadata.
  ['include_metadata', { type: 'boolean' }],
  ['include_hierarchy', { type: 'boolean' }],
  ['max_depth', { type: 'integer', min: 0, nullable: true }],
  ['tools_collapse_threshold', { type: 'integer', min: 0 }],
  ['include_line_numbers', { type: 'boolean' }],
];

/**
 * Validates `options` and fills in defaults. Unknown keys are ignored; `options` may be undefined or null.
 * Wrong types and out-of-range values throw TextReprInputError with attr `options__<name>` and DRF's messages
 * (`A valid integer is required.`, `Must be a valid boolean.`, `Ensure this value is greater than or equal to 1.`).
 * Values are read as PostHog's serializer (DRF) reads them: integers from digit strings (`"10"`),
 * booleans from `"yes"`, `1`, `"off"`….
 */
export function parseTextReprOptions(options: unknown): TextReprOptions {
  const result: TextReprOptions = { ...DEFAULT_TEXT_REPR_OPTIONS };
  if (options === undefined || options === null) return result;
  if (!isObject(options)) {
    throw new TextReprInputError(`Invalid data. Expected a dictionary, but got ${pyTypeName(options)}.`, 'options');
  }
  const values = result as unknown as Record<string, unknown>;
  for (const [name, kind] of OPTION_FIELDS) {
    if (!Object.hasOwn(options, name) || options[name] === undefined) continue;
    const value = options[name];
    const attr = `options__${name}`;
    if (value === null) {
      if (kind.type === 'integer' && kind.nullable) {
        values[name] = null;
        continue;
      }
      throw new TextReprInputError('This field may not be null.', attr, 'null');
    }
    const read = kind.type === 'boolean' ? drfBoolean(value) : drfInteger(value);
    if (read === undefined) throw new TextReprInputError(kind.type === 'boolean' ? 'Must be a valid boolean.' : 'A valid integer is required.', attr);
    if (kind.type === 'integer' && (read as number) < kind.min) throw new TextReprInputError(`Ensure this value is greater than or equal to ${kind.min}.`, attr, 'min_value');
    // `-0` is a valid integer that should read as 0.
    if (name !== 'include_metadata') values[name] = read === 0 ? 0 : read;
  }
  return result;
}
