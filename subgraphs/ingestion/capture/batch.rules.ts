import { ValidationError } from '../../shared/errors.js';
import type { CapturedEvent } from './captured-event.js';
import { parseIsoTime } from './event-time.js';
import { readEvent, type BatchContext } from './event.rules.js';

/** Where a batch's events are in a JSON text: the text itself, its `batch`, or the text as one event. */
export interface EventDocuments {
  json: string;
  path: 'array' | 'batch' | 'single';
}

/** A batch as it arrives, from `/batch/` or the `ingest_batch` mutation. */
export interface BatchInput {
  api_key?: string | null;
  historical_migration?: boolean | null;
  sent_at?: string | null;
  batch: unknown[];
  /** The events as received, when they came as JSON (the database reads their properties there). */
  documents?: EventDocuments;
}

/**
 * Every event of a batch, read by the rules, or the first event's 400: a batch is all or
 * nothing, so one bad event stops it before anything is written. Two events with one uuid are
 * one event (the first is kept), as a retried batch's events are.
 */
export function readBatch(input: BatchInput, environmentId: number, now: number): CapturedEvent[] {
  if (!Array.isArray(input.batch)) throw new ValidationError('Expected a list of items.', 'batch', 'not_a_list');
  if (input.batch.length === 0) throw new ValidationError('This list may not be empty.', 'batch', 'empty');
  const context: BatchContext = {
    environment_id: environmentId,
    historical_migration: input.historical_migration === true,
    sent_at: sentAt(input.sent_at),
    now,
  };
  const seen = new Set<string>();
  const events: CapturedEvent[] = [];
  for (const [index, raw] of input.batch.entries()) {
    const event = readEvent(raw, index, context);
    if (seen.has(event.uuid)) continue;
    seen.add(event.uuid);
    events.push(event);
  }
  return events;
}

function sentAt(value: string | null | undefined): BatchContext['sent_at'] {
  if (value === undefined || value === null || value === '') return null;
  const time = parseIsoTime(value);
  if (!time) throw new ValidationError('Datetime has wrong format. Use ISO 8601 (e.g. 2025-11-24T12:34:56Z).', 'sent_at', 'invalid');
  return time;
}
