import { checkExportFilters, checkExportQuery, exportColumns, readExportPage, type ExportField, type ExportKeyset, type ExportQuery, type ExportTime, type ExportWindow } from './exports/export-query.js';

export type { ExportField, ExportKeyset, ExportQuery, ExportTime, ExportWindow };

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
  /** One page of an export query over a window of ingestion or event time, after a keyset, run as HogQL queries run. */
  readExportPage,
};
