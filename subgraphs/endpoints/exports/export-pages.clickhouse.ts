import { ingestionFacade, type EventPagePlan } from '../../ingestion/facade.js';
import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import type { Logger } from '../../shared/logger.js';
import { printHogQLForClickHouse } from '../hogql/clickhouse/clickhouse.printer.js';
import { ClickHouseQueryExecutor } from '../queries/query.clickhouse.js';
import type { QueryRows } from '../queries/query.executor.js';
import { ResultTooLargeError } from '../queries/query.reader.js';
import { exportCompileOptions, exportPageQuery, pageOf, type ExportKeyset, type ExportPage, type ExportQuery, type ExportWindow } from './export-query.js';

/**
 * An export's pages on ClickHouse: the page's AST as on PostgreSQL, printed by the ClickHouse
 * printer and run by its executor (read-only, the same limits and 400s). The table is sorted by
 * the event's day, not by the export's order, so a page cannot find its own end along an index:
 * the first read plans every page of the window in one pass over its keys (ingestion's
 * planEventPages), and each page then reads its range alone, the days its events happened on
 * included, so that a page costs its slice of the window and a run its size, not its square.
 */
export class ClickHouseExportPages {
  private plan: EventPagePlan | null = null;
  /** The rows a page of the plan holds. */
  private planRows = 0;
  /** The plan's bound the next page ends at. */
  private next = 0;
  /** The `last` of the page read before: the next read that goes on from it follows the plan. */
  private expected: ExportKeyset | null = null;

  constructor(
    private readonly clickhouse: ClickHouse,
    private readonly log: Logger,
    private readonly query: ExportQuery,
    private readonly window: ExportWindow,
    /** Rows a page reads: the caller's, halved while a page of wide events passes the result byte cap. */
    private rows: number,
    private readonly timeoutMs: number,
  ) {}

  async read(after: ExportKeyset | null): Promise<ExportPage> {
    if (!this.plan || !sameKey(after, this.expected)) {
      this.plan = await ingestionFacade.planEventPagesForExport(this.clickhouse, this.window.teamId, this.window, after, this.rows);
      this.planRows = this.rows;
      this.next = 0;
    }
    const bound = this.plan.bounds[this.next] ?? null;
    // Only an ingest-time range needs its days named: an event-time range is a range of days already.
    const timestamps = bound && this.window.by === 'created_at' ? bound.timestamps : undefined;
    const printed = printHogQLForClickHouse(exportPageQuery(this.query, this.window, { after, bound, timestamps }, this.rows), exportCompileOptions(this.rows), {
      environmentId: this.window.teamId,
      database: this.clickhouse.database,
    });
    let read: QueryRows;
    try {
      read = await new ClickHouseQueryExecutor(this.clickhouse, this.log).run(this.window.teamId, printed, this.timeoutMs);
    } catch (error) {
      // ClickHouse stops a result at its byte cap rather than cutting it after a whole row, as
      // PostgreSQL's reader does: the page is read again in half the rows (the same range, which
      // then ends early), until it fits; a single row past the cap fails as on PostgreSQL.
      if (!(error instanceof ResultTooLargeError) || this.rows === 1) throw error;
      this.rows = Math.ceil(this.rows / 2);
      return this.read(after);
    }
    const repeated = this.plan.repeated;
    const page = pageOf(printed.columns, read.rows, read.hasMore, bound, (rows) => firstCopies(rows, printed.columns.length - 2, repeated));
    // A page that ended early goes on to the same bound; one that reached it, to the next.
    const endedEarly = page.last !== null && (bound === null || !sameKey(page.last, bound));
    if (!endedEarly) this.next++;
    this.expected = page.last;
    // Pages of fewer rows than the plan's would each read a slice of the plan's size: plan again.
    if (this.rows < this.planRows) this.plan = null;
    return page;
  }
}

function sameKey(a: ExportKeyset | null, b: ExportKeyset | null): boolean {
  return a === b || (a !== null && b !== null && micros(a.at) === micros(b.at) && a.uuid === b.uuid);
}

/**
 * The rows of each event's one copy: a uuid ReplacingMergeTree holds twice until it merges is read
 * at the copy the merge keeps (`repeated` names it), and twice at one key side by side.
 */
function firstCopies(rows: unknown[][], keyset: number, repeated: Map<string, string>): unknown[][] {
  let previous: string | null = null;
  return rows.filter((row) => {
    const uuid = String(row[keyset + 1]);
    const kept = repeated.get(uuid);
    const keep = uuid !== previous && (kept === undefined || micros(String(row[keyset])) === micros(kept));
    previous = uuid;
    return keep;
  });
}

/** Microseconds since the epoch of an ISO 8601 time in UTC, whatever digits its fraction has. */
function micros(iso: string): number {
  const match = /^(.*?)(?:\.(\d+))?Z$/.exec(iso);
  if (!match) return Number.NaN;
  return Date.parse(`${match[1]}Z`) * 1000 + Number((match[2] ?? '').padEnd(6, '0').slice(0, 6));
}
