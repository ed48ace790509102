import { AppError, ServiceUnavailableError, ValidationError } from '../../shared/errors.js';

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

/** 413 for one event over the size limit, naming it. */
export function eventTooLarge(index: number, size: number, limit: number): AppError {
  return new AppError(413, 'invalid_request', 'event_too_large', `The event's properties take ${size} bytes; at most ${limit} are taken.`, `batch__${index}__properties`);
}

/**
 * PostgreSQL's refusals of what the events hold, which JavaScript let through, by SQLSTATE, in
 * words of our own: the driver's message carries the statement, which is not the caller's to read.
 */
const REFUSED_DATA = new Map([
  ['22P02', 'a value PostgreSQL cannot read'],
  ['22003', 'a number out of range (such as 1e999999)'],
  ['22P05', 'a character that cannot be stored'],
  ['22021', 'a character that cannot be stored'],
  ['54000', 'a value over the size the database can hold'],
  ['54001', 'properties nested deeper than the database can read'],
]);

/** The 400 for a write PostgreSQL refused because of the events' data; null for any other failure. */
export function refusedData(error: unknown): ValidationError | null {
  const { code } = error as { code?: string };
  const what = code === undefined ? undefined : REFUSED_DATA.get(code);
  if (!what) return null;
  return new ValidationError(`An event of the batch holds ${what}; nothing of the batch was stored.`, 'batch', code === '54001' ? 'too_deep' : 'invalid_input');
}

/**
 * 503 for a batch whose earlier attempt was settled as lost (its changes dropped, its events not
 * in ClickHouse) while this one ran: sent again, it is stored whole.
 */
export const sendAgain = () => new ServiceUnavailableError('An earlier attempt of this batch was given up meanwhile; send it again.');
