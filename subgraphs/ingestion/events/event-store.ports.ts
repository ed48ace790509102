import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../shared/logger.js';
import type { CapturedEvent } from '../capture/captured-event.js';
import type { EventQuery } from './event-condition.js';
import type { EventPosition } from './event-cursor.js';

/** An event as the event API answers it. */
export interface EventRow {
  id: string;
  distinct_id: string;
  event: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

/** An event by what the events store finds it by. */
export type EventKey = Pick<CapturedEvent, 'uuid' | 'timestamp'>;

/** What storing a batch's events left. */
export interface StoredBatch {
  /** The events the environment had not seen, in the batch's order. */
  fresh: CapturedEvent[];
  /**
   * The batch's uuids ClickHouse held already: an earlier attempt's insert landed, so the changes
   * that attempt queued may apply. Empty on PostgreSQL, where nothing waits for an insert.
   */
  landed: string[];
  /** ClickHouse's insert of `fresh`, left for after the transaction; null when nothing is left. */
  pending: PendingInsert | null;
}

/**
 * An insert of a batch's fresh events into ClickHouse, to make once the batch's transaction
 * committed. The profile changes queued with the batch name its token and wait for it.
 */
export interface PendingInsert {
  /** The insert's deduplication token, of the environment and the events' uuids: an attempt of the batch with the same fresh events has the same. */
  token: string;
  events: EventKey[];
  insert(): Promise<void>;
  /** Whether ClickHouse holds every one of `events`. */
  landed(): Promise<boolean>;
}

export type TrendInterval = 'hour' | 'day' | 'week' | 'month';

/**
 * Where an installation's events are written and read: PostgreSQL's `ingestion.events`, or
 * ClickHouse's `events` (CLICKHOUSE_URL). Both answer alike; the rules of a batch and the tenant
 * scoping are the callers', each query names its environment.
 */
export interface EventStore {
  /** What must exist before a batch's transaction writes these events (PostgreSQL's monthly partitions). */
  prepare(em: EntityManager, events: CapturedEvent[], log: Logger): Promise<void>;
  /**
   * Stores the events whose uuid the environment has not seen, inside the batch's PostgreSQL
   * transaction `tx`, and answers them, with the rest of the batch's uuids. PostgreSQL writes them
   * in `tx` (which undoes them if the batch is refused after); ClickHouse, which cannot undo an
   * insert, leaves its insert `pending`, for the caller to make once `tx` committed.
   */
  store(tx: EntityManager, environmentId: number, events: CapturedEvent[]): Promise<StoredBatch>;
  /** After a write failed: whether it is worth running the batch's transaction again, and what to forget first. */
  retryable(error: unknown): boolean;
  /** A page newest first, after `after` (exclusive) in (timestamp, uuid) order. */
  page(em: EntityManager, query: EventQuery, after: EventPosition | null, limit: number): Promise<EventRow[]>;
  count(em: EntityManager, query: EventQuery): Promise<number>;
  find(em: EntityManager, environmentId: number, uuid: string): Promise<EventRow | null>;
  /** How many events fall in each hour, day, week or month (UTC; weeks start on Monday), oldest first; empty buckets left out. */
  trend(em: EntityManager, query: EventQuery, interval: TrendInterval): Promise<{ bucket: string; count: number }[]>;
  /** Removes every event of these environments (project deletion; safe to repeat). */
  deleteEnvironments(em: EntityManager, environmentIds: number[]): Promise<void>;
}
