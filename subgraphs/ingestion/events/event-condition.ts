import { ValidationError } from '../../shared/errors.js';
import { formatEventTime, parseIsoTime } from '../capture/event-time.rules.js';

/** What a read of events may narrow by (every field optional). */
export interface EventFilter {
  event?: string | null;
  distinct_id?: string | null;
  /** ISO 8601, inclusive. */
  after?: string | null;
  /** ISO 8601, exclusive. */
  before?: string | null;
}

/** One environment's events matching a filter whose times were read: what either store's query narrows by. */
export interface EventQuery {
  environmentId: number;
  event: string | null;
  distinct_id: string | null;
  /** As stored (`2024-05-01T12:00:00.123456Z`), inclusive. */
  after: string | null;
  /** As stored, exclusive. */
  before: string | null;
}

/** The query of an environment's events matching `filter`; a bad time is a 400 on its field. */
export function eventQuery(environmentId: number, filter: EventFilter): EventQuery {
  return {
    environmentId,
    event: filter.event ?? null,
    distinct_id: filter.distinct_id ?? null,
    after: filter.after != null ? boundary(filter.after, 'after') : null,
    before: filter.before != null ? boundary(filter.before, 'before') : null,
  };
}

function boundary(value: string, attr: string): string {
  const time = parseIsoTime(value);
  if (!time) throw new ValidationError('Datetime has wrong format. Use ISO 8601 (e.g. 2025-11-24T12:34:56Z).', attr);
  return formatEventTime(time);
}
