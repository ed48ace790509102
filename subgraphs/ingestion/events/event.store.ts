import type { EntityManager } from '@mikro-orm/postgresql';
import { clickhouseOf } from '../../shared/clickhouse/clickhouse.registry.js';
import { ClickHouseEvents } from './event.clickhouse.js';
import type { EventStore } from './event-store.ports.js';
import { postgresEvents } from './event.repository.js';

export type { EventRow, EventStore, TrendInterval } from './event-store.ports.js';

/** The events store of the installation `em` belongs to. */
export function eventStoreOf(em: EntityManager): EventStore {
  const clickhouse = clickhouseOf(em);
  return clickhouse ? ClickHouseEvents.of(clickhouse) : postgresEvents;
}
