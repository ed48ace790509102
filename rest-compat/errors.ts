import { errorBody, type ErrorBody } from '../subgraphs/shared/errors.js';

interface GraphQLErrorLike {
  message: string;
  extensions?: Record<string, unknown>;
}

/**
 * The contract's error body for the first GraphQL error. Errors that graphql-js raises while
 * coercing arguments (before any resolver runs) are reworded the way PostHog words field errors,
 * with `attr` naming the field.
 */
export function restError(error: GraphQLErrorLike): { status: number; body: ErrorBody } {
  return variableError(error.message) ?? errorBody(error);
}

function variableError(message: string): { status: number; body: ErrorBody } | null {
  const variable = /^Variable "\$(\w+)"/.exec(message)?.[1];
  if (!variable) return null;
  const body = (code: string, detail: string): { status: number; body: ErrorBody } => ({
    status: 400,
    body: { type: 'validation_error', code, detail, attr: variable },
  });
  if (/was not provided/.test(message)) return body('required', 'This field is required.');
  if (/must not be null/.test(message)) return body('null', 'This field may not be null.');
  const choice = /got invalid value (".*?"|\S+); Value .* does not exist in ".*" enum/.exec(message);
  if (choice) return body('invalid_choice', `${choice[1]!.startsWith('"') ? choice[1] : `"${choice[1]}"`} is not a valid choice.`);
  if (/Int cannot represent/.test(message)) return body('invalid', 'A valid integer is required.');
  if (/Boolean cannot represent/.test(message)) return body('invalid', 'Must be a valid boolean.');
  if (/String cannot represent/.test(message)) return body('invalid', 'Not a valid string.');
  if (/Expected type "\[|expected iterable|List/.test(message)) return body('not_a_list', 'Expected a list of items.');
  return body('invalid_input', message);
}

export function errorResponse(status: number, body: ErrorBody, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { 'content-type': 'application/json', ...headers } });
}
