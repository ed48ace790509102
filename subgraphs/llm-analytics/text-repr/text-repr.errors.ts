/**
 * Thrown for bad input; `attr` names the field as the API's error body does (e.g. 'event_type', 'data',
 * 'options__max_length'), or null for the checks on the content of `data`, and `code` the failure as DRF's fields name it.
 */
export class TextReprInputError extends Error {
  constructor(
    message: string,
    readonly attr: string | null = null,
    /** DRF's code for the failure (`required`, `invalid_choice`, `min_value`…). */
    readonly code = 'invalid_input',
  ) {
    super(message);
    this.name = 'TextReprInputError';
  }
}
