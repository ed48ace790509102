/** Rows answered when neither the query nor the caller sets a limit (PostHog's DEFAULT_RETURNED_ROWS). */
export const DEFAULT_LIMIT = 100;

/** Most rows any query answers (PostHog's MAX_SELECT_RETURNED_ROWS). */
export const MAX_LIMIT = 50_000;

/** The name the materializer asks for: as many rows as a query may answer. */
export const MAX_RESULT_ROWS = MAX_LIMIT;

/** How deeply AST nodes may nest: far beyond real queries, well within the stack's reach. */
export const MAX_DEPTH = 64;

/** Longest HogQL text parsed, in bytes. */
export const MAX_QUERY_BYTES = 64 * 1024;

/**
 * The outer limit of a query: min(asked by the caller, the query's own LIMIT), the default with
 * neither, never above the maximum.
 */
export function effectiveLimit(asked: number | undefined, own: number | undefined): number {
  const candidates = [asked, own].filter((value): value is number => value !== undefined);
  const chosen = candidates.length > 0 ? Math.min(...candidates) : DEFAULT_LIMIT;
  return Math.min(chosen, MAX_LIMIT);
}
