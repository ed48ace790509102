import { describe, expect, it } from 'vitest';
import { contractError, NotFoundError, ValidationError } from './errors.js';

describe(contractError.name, () => {
  it('passes typed errors through with their status and attr', () => {
    expect(contractError(new ValidationError('Bad.', 'name', 'blank'))).toEqual({ status: 400, body: { type: 'validation_error', code: 'blank', detail: 'Bad.', attr: 'name' } });
    expect(contractError(new NotFoundError())).toEqual({ status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null } });
  });

  it.each([
    ['Variable "$scope" of required type "CustomerProfileScope!" was not provided.', 'required', 'This field is required.'],
    ['Variable "$label" of non-null type "String!" must not be null.', 'null', 'This field may not be null.'],
    ['Variable "$scope" got invalid value "x"; Value "x" does not exist in "CustomerProfileScope" enum.', 'invalid_choice', '"x" is not a valid choice.'],
    ['Variable "$limit" got invalid value "a"; Int cannot represent non-integer value: "a"', 'invalid_input', 'A valid integer is required.'],
    ['Variable "$scope" got invalid value 5; Enum "CustomerProfileScope" cannot represent non-string value: 5.', 'invalid_choice', '"5" is not a valid choice.'],
    ['Variable "$scope" got invalid value ["person"]; Enum "CustomerProfileScope" cannot represent non-string value: ["person"]. Did you mean the enum value "person"?', 'invalid_choice', `"['person']" is not a valid choice.`],
    ['Variable "$input" got invalid value "a; b" at "input.limit"; Int cannot represent non-integer value: "a; b"', 'invalid_input', 'A valid integer is required.'],
    ['Variable "$historical" got invalid value "maybe"; Boolean cannot represent a non boolean value: "maybe"', 'invalid_input', 'Must be a valid boolean.'],
  ])('rewords %s', (message, code, detail) => {
    const { status, body } = contractError({ message, extensions: { code: 'BAD_USER_INPUT' } });
    expect(status).toBe(400);
    expect(body).toMatchObject({ type: 'validation_error', code, detail });
    expect(body.attr).toBe(/\$(\w+)/.exec(message)![1]);
  });

  it.each([
    ['Field "create_llm_provider_key" argument "name" of type "String!" is required, but it was not provided.', 'required', 'This field is required.', 'name'],
    ['Expected value of type "CustomerProfileScope!", found zzz; Value "zzz" does not exist in "CustomerProfileScope" enum.', 'invalid_choice', '"zzz" is not a valid choice.', null],
    ['Expected value of type "CustomerProfileScope!", found "person"; Enum "CustomerProfileScope" cannot represent non-enum value: "person". Did you mean the enum value "person"?', 'invalid_choice', '"person" is not a valid choice.', null],
    // graphql 16.9 on: the type's own words alone.
    ['Value "foo" does not exist in "CustomerProfileScope" enum.', 'invalid_choice', '"foo" is not a valid choice.', null],
    ['Value "persn" does not exist in "CustomerProfileScope" enum. Did you mean the enum value "person"?', 'invalid_choice', '"persn" is not a valid choice.', null],
    ['Enum "CustomerProfileScope" cannot represent non-enum value: "person". Did you mean the enum value "person"?', 'invalid_choice', '"person" is not a valid choice.', null],
    ['Boolean cannot represent a non boolean value: "maybe"', 'invalid_input', 'Must be a valid boolean.', null],
    ['Int cannot represent non-integer value: "x"', 'invalid_input', 'A valid integer is required.', null],
  ])('rewords the document literal error %s', (message, code, detail, attr) => {
    expect(contractError({ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })).toEqual({ status: 400, body: { type: 'validation_error', code, detail, attr } });
  });

  it('leaves a result that failed to serialize a server error, whatever its words', () => {
    expect(contractError({ message: 'Int cannot represent non-integer value: 1.5', extensions: {} })).toMatchObject({ status: 500 });
  });

  it('hides unexpected errors behind the generic server error', () => {
    expect(contractError({ message: 'connection reset at 10.0.0.3', extensions: { code: 'INTERNAL_SERVER_ERROR' } })).toEqual({
      status: 500,
      body: { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null },
    });
  });
});
