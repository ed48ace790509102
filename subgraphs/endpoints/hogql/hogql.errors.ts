import { ValidationError } from '../../shared/errors.js';

/** 400: a HogQL query (or a query node compiled to HogQL) that the compiler refuses; `attr` is `query`. */
export class HogQLError extends ValidationError {
  constructor(detail: string, code?: string) {
    super(detail, 'query', code);
  }
}

/** 400 `query_too_complex`: a query the parser cannot finish within its stack or time budget, or that compiles past its bounds. */
export class QueryTooComplexError extends HogQLError {
  constructor(step: 'parse' | 'compile' = 'parse') {
    super(`Invalid HogQL query: the query is too complex to ${step}.`, 'query_too_complex');
  }
}
