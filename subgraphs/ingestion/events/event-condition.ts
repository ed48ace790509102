import { ValidationError } from '../../shared/errors.js';
import { formatEventTime, parseIsoTime } from '../capture/event-time.rules.js';
import type { EventCondition } from './event.repository.js';

/** What a read of events may narrow by (every field optional). */
export interface EventFilter {
  event?: string | null;
  distinct_id?: string | null;
  /** ISO 8601, inclusive. */
  after?: string | null;
  /** ISO 8601, exclusive. */
  before?: string | null;
}

/** The SQL condition of one environment's events matching a filter; a bad time is a 400 on its field. */
export function eventCondition(environmentId: number, filter: EventFilter): EventCondition {
  const parts = ['environment_id = ?'];
  const params: unknown[] = [environmentId];
  const add = (sql: string, value: unknown) => {
    parts.push(sql);
    params.push(value);
  };
  if (filter.event != null) add('event = ?', filter.event);
  if (filter.distinct_id != null) add('distinct_id = ?', filter.distinct_id);
  if (filter.after != null) add('timestamp >= ?::timestamptz', boundary(filter.after, 'after'));
  if (filter.before != null) add('timestamp < ?::timestamptz', boundary(filter.before, 'before'));
  return { sql: parts.join(' and '), params };
}

function boundary(value: string, attr: string): string {
  const time = parseIsoTime(value);
  if (!time) throw new ValidationError('Datetime has wrong format. Use ISO 8601 (e.g. 2025-11-24T12:34:56Z).', attr);
  return formatEventTime(time);
}
