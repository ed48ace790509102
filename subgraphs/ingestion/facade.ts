import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClickHouse } from '../shared/clickhouse/clickhouse.js';
import { pageWindow } from '../shared/subgraph/pagination.js';
import { eventQuery, type EventFilter } from './events/event-condition.js';
import { readEventPageBound, type EventKeyset, type EventTime } from './exports/events.export.js';
import { planEventPages, type EventPageBound, type EventPagePlan } from './exports/events.export.clickhouse.js';
import { PERSON_EXPORT_COLUMNS, readPersonsPage, type PersonKeyset } from './exports/persons.export.js';
import { refreshPersonStatistics } from './exports/query-statistics.js';
import { eventsCopy, type EventCopyKey } from './events/event.copy.js';
import type { MirroredCounts } from './profiles/profile-mirror.backfill.js';
import { eventStoreOf, type TrendInterval } from './events/event.store.js';
import type { PersonRecord } from './persons/person.record.js';
import { listPersons } from './persons/person.repository.js';
import { personRecord } from './persons/person.service.js';
import { QUERY_SURFACE } from './query-surface.js';
import { MATERIALIZED_COLUMNS } from './clickhouse/clickhouse.materialized-columns.js';

export type { EventCopyKey, EventFilter, MirroredCounts, EventKeyset, EventPageBound, EventPagePlan, EventTime, PersonKeyset, PersonRecord, TrendInterval };

/**
 * What other subgraphs may read of an environment's ingested data (the assistant's tools): plain
 * objects in and out, on any subgraph's EntityManager. The caller has already established that
 * its actor reaches the environment. The projects subgraph's deletion job reaches ingestion's
 * data through the subgraph definition (`deleteEnvironmentData`).
 */
export const ingestionFacade = {
  /** The views HogQL queries read (PostHog's table names), the role they run as and the setting that names their team. */
  querySurface: QUERY_SURFACE,

  /** How many events match; a bad time is a 400 on `after` or `before`. */
  countEvents: (em: EntityManager, environmentId: number, filter: EventFilter): Promise<number> =>
    eventStoreOf(em).count(em, eventQuery(environmentId, filter)),

  /** Events per hour, day, week or month (UTC), oldest first; buckets without events left out. */
  eventTrend: (em: EntityManager, environmentId: number, filter: EventFilter, interval: TrendInterval): Promise<{ bucket: string; count: number }[]> =>
    eventStoreOf(em).trend(em, eventQuery(environmentId, filter), interval),

  /** Persons newest first, with a property value or distinct id containing `search` when given. */
  listPersons: async (em: EntityManager, environmentId: number, filter: { search?: string | null; limit?: number }): Promise<{ count: number; results: PersonRecord[] }> => {
    const { rows, count } = await listPersons(em, environmentId, { search: filter.search }, pageWindow({ limit: filter.limit }));
    return { count, results: rows.map(personRecord) };
  },

  /** Analyzes the person tables if they changed much since PostgreSQL last counted them (before a long read joins them); answers the tables analyzed. */
  refreshPersonStatistics: (em: EntityManager): Promise<string[]> => refreshPersonStatistics(em),

  /** The columns of a persons export (batch exports' persons model). */
  personExportColumns: PERSON_EXPORT_COLUMNS,

  /** A page of the persons that changed in `[start, end)`, one row per distinct id, after `after`, in a fixed order. */
  readPersonsForExport: (em: EntityManager, environmentId: number, window: { start: Date | null; end: Date }, after: PersonKeyset | null, limit: number) =>
    readPersonsPage(em, environmentId, window, after, limit),

  /** Where a page of `rows` events after `after` of an export's window ends, in (time, uuid) order: null when fewer remain. */
  eventPageBoundForExport: (em: EntityManager, environmentId: number, window: { by: EventTime; start: Date | null; end: Date }, after: EventKeyset | null, rows: number): Promise<EventKeyset | null> =>
    readEventPageBound(em, environmentId, window, after, rows),

  /** On ClickHouse: the bounds of every page of `rows` events after `after` of an export's window, and the uuids stored twice there. */
  planEventPagesForExport: (clickhouse: ClickHouse, environmentId: number, window: { by: EventTime; start: Date | null; end: Date }, after: EventKeyset | null, rows: number): Promise<EventPagePlan> =>
    planEventPages(clickhouse, environmentId, window, after, rows),

  /** Copying the events from PostgreSQL to ClickHouse (`npm run events:copy`), a page at a time. */
  eventsCopy,

  /** Materialized property columns on ClickHouse (`npm run events:materialize`): which there are, and making one. */
  materializedColumns: MATERIALIZED_COLUMNS,
};
