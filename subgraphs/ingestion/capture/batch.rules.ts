import { ValidationError } from '../../shared/errors.js';
import { uuidV5 } from '../name-uuid.js';
import type { CapturedEvent } from './captured-event.js';
import { parseIsoTime } from './event-time.rules.js';
import { readEvent, type BatchContext } from './event.rules.js';
import type { SentTexts } from './sent-texts.js';

/** A batch as it arrives, from `/batch/` or the `ingest_batch` mutation. */
export interface BatchInput {
  api_key?: string | null;
  historical_migration?: boolean | null;
  sent_at?: string | null;
  batch: unknown[];
  /** Each event's properties (and top-level sets) as sent, when the events came as JSON text. */
  sent_texts?: SentTexts[];
}

/** Namespace of the ids derived for events sent without one. */
const EVENT_NAMESPACE = '1b2b4cd2-64b1-4f3e-8f6a-7d0c3c3e9a51';

/**
 * Every event of a batch, read by the rules, or the first event's 400: a batch is all or
 * nothing, so one bad event stops it before anything is written. Read at once, before anything
 * is awaited, so that the parsed request is garbage young; ids are derived later (`identify`).
 */
export function readBatch(input: BatchInput, now: number): CapturedEvent[] {
  if (!Array.isArray(input.batch)) throw new ValidationError('Expected a list of items.', 'batch', 'not_a_list');
  if (input.batch.length === 0) throw new ValidationError('This list may not be empty.', 'batch', 'empty');
  const context: BatchContext = { historical_migration: input.historical_migration === true, sent_at: sentAt(input.sent_at), now };
  return input.batch.map((raw, index) => readEvent(raw, index, context, input.sent_texts?.[index] ?? null));
}

/**
 * Gives events sent without a uuid theirs: same environment, person, name, time and content, same
 * id, so that a retried batch stores nothing twice. Two events with one uuid are one event (the
 * first is kept), as a retried batch's events are.
 */
export function identify(events: CapturedEvent[], environmentId: number): CapturedEvent[] {
  const seen = new Set<string>();
  return events.filter((event) => {
    if (event.derived_from !== null) event.uuid = uuidV5(`${environmentId}\n${event.derived_from}`, EVENT_NAMESPACE);
    if (seen.has(event.uuid)) return false;
    seen.add(event.uuid);
    return true;
  });
}

function sentAt(value: string | null | undefined): BatchContext['sent_at'] {
  if (value === undefined || value === null || value === '') return null;
  const time = parseIsoTime(value);
  if (!time) throw new ValidationError('Datetime has wrong format. Use ISO 8601 (e.g. 2025-11-24T12:34:56Z).', 'sent_at');
  return time;
}
