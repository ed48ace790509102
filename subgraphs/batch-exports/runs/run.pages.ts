import type { EntityManager } from '@mikro-orm/postgresql';
import { endpointsFacade, type ExportKeyset, type ExportQuery, type ExportWindow } from '../../endpoints/facade.js';
import { ingestionFacade, type PersonKeyset } from '../../ingestion/facade.js';
import type { Logger } from '../../shared/logger.js';
import type { Destination } from '../destinations/destination.js';
import type { BatchExport } from '../exports/batch-export.entity.js';
import type { ExportColumn, ExportPage } from '../formats/export-columns.js';

/** Rows a page reads at most: big enough that a page costs little; a page of wide events ends earlier, at the result byte cap. */
export const PAGE_ROWS = 10_000;
/** How long one page's query may run. */
const PAGE_TIMEOUT_MS = 300_000;

/** What a run exports: its columns, and its rows page by page. */
export interface RunSource {
  columns: ExportColumn[];
  pages(signal: AbortSignal): AsyncIterable<ExportPage>;
}

interface Read<K> {
  rows: unknown[][];
  /** The key the next page reads after. */
  last: K | null;
  /**
   * Whether rows may follow `last`: a page may hold fewer rows than it could, or none (an events
   * page bounded before its filters ran), and still have more after it.
   */
  more: boolean;
}

const queries = new Map<string, Promise<ExportQuery>>();

/** A checked query, parsed once per text in a process (in the turn of the environment that asked first). */
function exportQuery(teamId: number, text: string): Promise<ExportQuery> {
  let query = queries.get(text);
  if (!query) {
    query = endpointsFacade.checkExportQuery(teamId, text);
    query.catch(() => queries.delete(text));
    if (queries.size > 1000) queries.clear();
    queries.set(text, query);
  }
  return query;
}

/** A run's interval `[start, end)`, and whether a backfill made the run. */
export interface RunWindow {
  start: Date | null;
  end: Date;
  backfill: boolean;
}

/**
 * The rows of an export's interval: events (the export's `hogql_query`, or the destination's own
 * fields) filtered by event names and properties, a scheduled run's by ingestion time and a
 * backfill's by event time (PostHog's two views: history imported now is found by its own dates);
 * persons by the time they last changed. Pages come in a fixed order, the same on every attempt of
 * a run, and the next one is read while the destination writes the last.
 */
export async function runSource(em: EntityManager, log: Logger, batchExport: BatchExport, destination: Destination, window: RunWindow, config: Record<string, unknown>): Promise<RunSource> {
  const teamId = batchExport.environment_id;
  const analyzed = await ingestionFacade.refreshPersonStatistics(em);
  if (analyzed.length > 0) log.info({ tables: analyzed }, 'person tables analyzed before an export read them');
  if (batchExport.model === 'persons') {
    const columns = ingestionFacade.personExportColumns.map((column) => ({ ...column })) as ExportColumn[];
    const read = async (after: PersonKeyset | null) => {
      const page = await ingestionFacade.readPersonsForExport(em, teamId, window, after, PAGE_ROWS);
      return { ...page, more: page.rows.length >= PAGE_ROWS && page.last !== null };
    };
    return { columns, pages: (signal) => prefetched(read, columns, signal) };
  }
  const query = await exportQuery(teamId, destination.takesQuery && batchExport.hogql_query ? batchExport.hogql_query : destination.eventsQuery);
  const columns = endpointsFacade.exportColumns(query) as ExportColumn[];
  const exportWindow: ExportWindow = {
    teamId,
    by: window.backfill ? 'timestamp' : 'created_at',
    start: window.start,
    end: window.end,
    includeEvents: config.include_events as string[] | null,
    excludeEvents: config.exclude_events as string[] | null,
    filters: batchExport.filters,
  };
  return {
    columns,
    pages: (signal) => {
      const pages = endpointsFacade.openExportPages(em, log, query, exportWindow, PAGE_ROWS, PAGE_TIMEOUT_MS);
      return prefetched<ExportKeyset>((after) => pages.read(after), columns, signal);
    },
  };
}

async function* prefetched<K>(read: (after: K | null) => Promise<Read<K>>, columns: ExportColumn[], signal: AbortSignal): AsyncGenerator<ExportPage> {
  let next = read(null);
  for (;;) {
    const page = await next;
    signal.throwIfAborted();
    if (page.more) {
      next = read(page.last);
      // Read ahead: a destination that stops early leaves this promise unawaited.
      next.catch(() => undefined);
    }
    yield { columns, rows: page.rows };
    if (!page.more) return;
  }
}
