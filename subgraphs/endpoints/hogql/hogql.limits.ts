/** Rows answered when neither the query nor the caller sets a limit (PostHog's DEFAULT_RETURNED_ROWS). */
export const DEFAULT_LIMIT = 100;

/** Most rows any query answers (PostHog's MAX_SELECT_RETURNED_ROWS). */
export const MAX_LIMIT = 50_000;

/** The name the materializer asks for: as many rows as a query may answer. */
export const MAX_RESULT_ROWS = MAX_LIMIT;

/** How deeply AST nodes may nest: far beyond real queries, well within the stack's reach. */
export const MAX_DEPTH = 64;

/**
 * Most expression nodes one compilation visits, and the longest SQL it writes. A WITH expression is
 * compiled again wherever it is named, an alias's SQL is repeated wherever it is used and some
 * functions repeat an argument's SQL, so a short query can multiply both; these bound the work
 * (counted as it is done) well above any real query's.
 */
export const MAX_COMPILED_NODES = 50_000;
export const MAX_QUERY_SQL_CHARS = 1024 * 1024;

/** Longest HogQL text parsed, in bytes. */
export const MAX_QUERY_BYTES = 64 * 1024;

/**
 * Longest one parse may run in its worker, in milliseconds. PostHog's parser takes superlinear time
 * on some short texts (nested calls, NOT chains), so the size limit alone bounds nothing; real
 * queries parse far below this, and a long IN list at the size limit well within it.
 */
export const PARSE_BUDGET_MS = 2_000;

/**
 * Parse worker threads per process, each with its own WebAssembly instance. Two: one query stuck
 * until its budget leaves the other parses of the process running, while every process of a
 * cluster (one per core by default) has its own pair; more would only share the same cores.
 */
export const PARSE_WORKERS = 2;

/**
 * The outer limit of a query: min(asked by the caller, the query's own LIMIT), the default with
 * neither, never above the maximum.
 */
export function effectiveLimit(asked: number | undefined, own: number | undefined): number {
  const candidates = [asked, own].filter((value): value is number => value !== undefined);
  const chosen = candidates.length > 0 ? Math.min(...candidates) : DEFAULT_LIMIT;
  return Math.min(chosen, MAX_LIMIT);
}
