import { ValidationError } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { parseIsoTime } from '../capture/event-time.rules.js';

/** Where a page of events newest first resumes: after this event, in (timestamp, uuid) order. */
export interface EventPosition {
  timestamp: string;
  uuid: string;
}

/** Opaque to callers: base64url of `<timestamp> <uuid>`. */
export function encodeCursor(position: EventPosition): string {
  return Buffer.from(`${position.timestamp} ${position.uuid}`).toString('base64url');
}

export function decodeCursor(cursor: string): EventPosition {
  const [timestamp = '', uuid = '', rest] = Buffer.from(cursor, 'base64url').toString('utf8').split(' ');
  if (rest !== undefined || !parseIsoTime(timestamp) || !isUuid(uuid)) throw new ValidationError('Invalid cursor.', 'cursor');
  return { timestamp, uuid };
}
