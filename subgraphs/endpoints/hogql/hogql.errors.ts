import { ValidationError } from '../../shared/errors.js';

/** 400: a HogQL query (or a query node compiled to HogQL) that the compiler refuses; `attr` is `query`. */
export class HogQLError extends ValidationError {
  constructor(detail: string, code?: string) {
    super(detail, 'query', code);
  }
}

/** How far a compilation got before a bound stopped it. */
export interface CompileSpent {
  nodes: number;
  sqlChars: number;
}

/**
 * 400 `query_too_complex`: a query the parser cannot finish within its stack or time budget, or
 * that compiles past its bounds; then the message names the bound, and `spent` (kept off the wire)
 * says how much work was done when it stopped.
 */
export class QueryTooComplexError extends HogQLError {
  readonly spent?: CompileSpent;

  constructor(step: 'parse' | 'compile' = 'parse', past?: { limit: string; spent: CompileSpent }) {
    const limit = past ? ` (more than ${past.limit})` : '';
    super(`Invalid HogQL query: the query is too complex to ${step}${limit}.`, 'query_too_complex');
    this.spent = past?.spent;
  }
}
