import { ValidationError } from '../../shared/errors.js';

/** 400: a HogQL query (or a query node compiled to HogQL) that the compiler refuses; `attr` is `query`. */
export class HogQLError extends ValidationError {
  constructor(detail: string) {
    super(detail, 'query');
  }
}
