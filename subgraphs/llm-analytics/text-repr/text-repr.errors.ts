/**
 * Thrown for bad input; `attr` names the field as the API's error body does (e.g. 'event_type', 'data',
 * 'options__max_length'), or null for the checks on the content of `data`.
 */
export class TextReprInputError extends Error {
  constructor(
    message: string,
    readonly attr: string | null = null,
  ) {
    super(message);
    this.name = 'TextReprInputError';
  }
}
