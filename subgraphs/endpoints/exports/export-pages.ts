import type { EntityManager } from '@mikro-orm/postgresql';
import { ingestionFacade } from '../../ingestion/facade.js';
import { clickhouseOf } from '../../shared/clickhouse/clickhouse.registry.js';
import type { Logger } from '../../shared/logger.js';
import { QueryExecutor } from '../queries/query.executor.js';
import { ClickHouseExportPages } from './export-pages.clickhouse.js';
import { compileExportPage, pageOf, type ExportKeyset, type ExportPage, type ExportQuery, type ExportWindow } from './export-query.js';

/** An export's pages over one window, read one after another: each read goes on after the `last` of the one before. */
export interface ExportPages {
  read(after: ExportKeyset | null): Promise<ExportPage>;
}

/**
 * The pages of an export query over a window, on the installation's events store: at most
 * `limit` rows each, in (the window's `by`, uuid) order, each event once. A run opens them once
 * and reads them in turn; on ClickHouse they keep what the first read learned of the window.
 */
export function openExportPages(em: EntityManager, log: Logger, query: ExportQuery, window: ExportWindow, limit: number, timeoutMs: number): ExportPages {
  const clickhouse = clickhouseOf(em);
  if (clickhouse) return new ClickHouseExportPages(clickhouse, log, query, window, limit, timeoutMs);
  return { read: (after) => readPostgresPage(em, log, query, window, after, limit, timeoutMs) };
}

/**
 * One page on PostgreSQL: the query's columns for the events of the window after `after`, at most
 * `limit` rows. It runs as every HogQL query runs (the team's rows only, read-only, the reader
 * role, a statement timeout) and ends early, after a whole row, where the rows reach the result
 * byte cap: wide events make pages of any size, and the next page goes on after the last row
 * read. Ingestion's index says first where `limit` events from `after` end: the views' security
 * barrier keeps the page's sort above them, so that an unbounded page would sort the rest of its
 * window and a run would cost the square of its size.
 */
async function readPostgresPage(em: EntityManager, log: Logger, query: ExportQuery, window: ExportWindow, after: ExportKeyset | null, limit: number, timeoutMs: number): Promise<ExportPage> {
  const bound = await ingestionFacade.eventPageBoundForExport(em, window.teamId, window, after, limit);
  const compiled = compileExportPage(query, window, { after, bound }, limit);
  const { rows, hasMore } = await new QueryExecutor(em, log).run(window.teamId, compiled, timeoutMs, { partial: true });
  return pageOf(compiled.columns, rows, hasMore, bound);
}
