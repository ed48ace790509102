import { openExportPages, type ExportPages } from './exports/export-pages.js';
import { checkExportFilters, checkExportQuery, exportColumns, type ExportField, type ExportKeyset, type ExportQuery, type ExportTime, type ExportWindow } from './exports/export-query.js';
import { endpointPropertyReads, type PropertyReads } from './hogql/clickhouse/clickhouse.property-reads.js';

export type { ExportField, ExportKeyset, ExportPages, ExportQuery, ExportTime, ExportWindow, PropertyReads };

/**
 * What saved endpoints offer other subgraphs: the HogQL compiler, for the queries batch exports
 * run over the events (plain objects in and out; the caller has established its actor reaches the
 * environment).
 */
export const endpointsFacade = {
  /** Checks a batch export's `SELECT … FROM events` as PostHog does; 400s name `hogql_query`. */
  checkExportQuery,
  /** Checks property filters as export runs apply them; 400s name `filters`. */
  checkExportFilters,
  /** The columns an export query answers, typed. */
  exportColumns,
  /** The pages of an export query over a window of ingestion or event time, read in turn after a keyset, run as HogQL queries run, on the events store. */
  openExportPages,
  /** The top-level event properties the installation's active saved endpoints read, most-read first (`npm run events:materialize -- --suggest`). */
  eventPropertyReads: endpointPropertyReads,
};
