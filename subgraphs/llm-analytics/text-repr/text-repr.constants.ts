/** Shared constants of the text representation (PostHog's `formatters/constants.py`, section 3.5.1 of the notes). */

/** Section separator: 80 hyphens. */
export const SEPARATOR = '-'.repeat(80);

/** Underline of span and trace titles: 80 equals signs. */
export const TITLE_RULE = '='.repeat(80);

/** Python's `repr` fallback of content extraction is cut here (plus `...`). */
export const MAX_REPR_LENGTH = 500;

/** JSON of an input of an unknown shape is cut here (plus `...`). */
export const MAX_UNPARSED_LENGTH = 500;

/** The JSON description of a tool entry of an unknown shape is cut here. */
export const MAX_UNKNOWN_TOOL_DESCRIPTION_LENGTH = 100;

/**
 * Nesting depth at which the recursive serialisers (repr, JSON, YAML-like errors, text extraction) stop and print
 * `[...]` / `{...}` (Python's own marker for a recursive container). Python gives up near 1,000 levels with a
 * RecursionError (a 500 in PostHog); real events nest a few dozen levels, and the cap keeps hostile input from
 * overflowing the stack.
 */
export const MAX_NESTING = 1000;

/** Lines at the top of the text that `max_length` sampling never drops. */
export const PRESERVE_HEADER_LINES = 5;

/** Refinement rounds of the `max_length` sampling before the hard cut. */
export const SAMPLING_MAX_ITERATIONS = 10;

/** Safety margin applied when a sampling round still overshoots. */
export const SAMPLING_REDUCTION_FACTOR = 0.9;
