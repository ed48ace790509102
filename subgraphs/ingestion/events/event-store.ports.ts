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
   * transaction `tx`, and hands those to `withFresh` (which checks them and queues their profile
   * changes). PostgreSQL writes them first (its transaction undoes them if `withFresh` throws);
   * ClickHouse, which cannot undo an insert, writes them last, once `withFresh` passed. Answers
   * the fresh events.
   */
  store(tx: EntityManager, environmentId: number, events: CapturedEvent[], withFresh: (fresh: CapturedEvent[]) => Promise<void>): Promise<CapturedEvent[]>;
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
