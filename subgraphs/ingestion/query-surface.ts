import { readyMaterializedColumns } from './clickhouse/clickhouse.materialized-cache.js';
import { clickhouseQueryTable } from './clickhouse/clickhouse.query-tables.js';

/**
 * The read surface of HogQL queries (saved endpoints): views with PostHog's table and column
 * names over ingestion's tables, filtered by the team of the transaction, and the role queries
 * run as. Made by migration Migration20261125100000_ingestion; other subgraphs reach it through
 * the facade.
 */
export const QUERY_SURFACE = {
  /** The role HogQL queries run as: it reads the query views of one team, nothing else. */
  readerRole: 'analytics_hogql_reader',
  /** The team a query may read, set for its transaction only (`set_config(…, true)`). */
  teamSetting: 'hogql.team_id',
  /** PostHog's table names and the views that serve them. */
  views: {
    events: '"ingestion"."hogql_events"',
    persons: '"ingestion"."hogql_persons"',
    person_distinct_ids: '"ingestion"."hogql_person_distinct_ids"',
    groups: '"ingestion"."hogql_groups"',
  },
  /** The same tables on the ClickHouse events store: the SQL of one, filtered by the team. */
  clickhouseTable: clickhouseQueryTable,
  /** The filled materialized property columns of the events table in a ClickHouse database (`$browser` → `mat_$browser`), which its subquery gives. */
  clickhouseEventColumns: readyMaterializedColumns,
} as const;
