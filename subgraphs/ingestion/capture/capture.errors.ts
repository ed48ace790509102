import { AppError, ValidationError } from '../../shared/errors.js';

/** 401 on the project API key of a batch (`attr` names it), with PostHog's codes. */
export class ProjectKeyError extends AppError {
  constructor(code: 'missing_api_key' | 'invalid_api_key' | 'inconsistent_api_key', detail: string) {
    super(401, 'authentication_error', code, detail, 'api_key');
  }
}

export const missingKey = () => new ProjectKeyError('missing_api_key', 'API key not provided. You can find your project API key in your project settings.');
export const unknownKey = () => new ProjectKeyError('invalid_api_key', 'Project API key invalid. You can find your project API key in your project settings.');

/** A 400 on one field of one event: `attr` is `batch__<index>__<field>`, as PostHog names nested fields. */
export function eventError(index: number, field: string | null, detail: string, code: string): ValidationError {
  return new ValidationError(detail, field === null ? `batch__${index}` : `batch__${index}__${field}`, code);
}
