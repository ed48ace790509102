import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { clickhouseErrorType } from '../../shared/clickhouse/clickhouse.errors.js';
import { config } from '../../shared/config.js';
import type { Logger } from '../../shared/logger.js';
import type { ClickHouseQuery } from '../hogql/clickhouse/clickhouse.printer.js';
import { QueryExecutionError, querySlots, queryTimeoutMs, type QueryLimits, type QueryRows } from './query.executor.js';
import { ResultTooLargeError } from './query.reader.js';

/**
 * Runs a query printed for ClickHouse with every defence beneath the printer: the reader's own
 * connection, read-only, and ClickHouse's limits on time (ENDPOINT_QUERY_TIMEOUT_SECONDS), rows,
 * result bytes (QUERY_MAX_RESULT_BYTES) and memory (QUERY_MAX_MEMORY_BYTES), each stopping the
 * query where it stands; the same query slots as PostgreSQL's, shared fairly between teams.
 */
export class ClickHouseQueryExecutor {
  constructor(
    private readonly clickhouse: ClickHouse,
    private readonly log: Logger,
  ) {}

  async run(teamId: number, printed: ClickHouseQuery, timeoutMs = queryTimeoutMs(), limits: QueryLimits = {}): Promise<QueryRows> {
    const release = await querySlots().acquire(teamId);
    const maxBytes = limits.maxBytes ?? config().QUERY_MAX_RESULT_BYTES;
    try {
      const read = await this.clickhouse.read<Record<string, unknown>>(
        printed.sql,
        printed.params,
        { seconds: timeoutMs / 1000, rows: printed.limit + 1, bytes: maxBytes, memoryBytes: config().QUERY_MAX_MEMORY_BYTES },
        printed.settings,
      );
      // The SQL names its columns _c1.._cN; the answer is rows of values in that order.
      const rows = read.map((row) => printed.columns.map((_, index) => row[`_c${index + 1}`]));
      const overLimit = rows.length > printed.limit;
      return { rows: overLimit ? rows.slice(0, printed.limit) : rows, hasMore: overLimit, truncated: false };
    } catch (error) {
      throw this.failure(error, timeoutMs, maxBytes);
    } finally {
      release();
    }
  }

  /**
   * ClickHouse's refusals of the query as the 400s PostgreSQL's give: past its time, its result's
   * size, its memory, or whatever ClickHouse says of the query itself. An outage is already the
   * events store's 503 (EventsStoreUnavailableError) and passes as it is.
   */
  private failure(error: unknown, timeoutMs: number, maxBytes: number): unknown {
    const type = clickhouseErrorType(error);
    if (type === null) return error;
    if (type === 'TIMEOUT_EXCEEDED') return new QueryExecutionError(`the query ran longer than ${timeoutMs / 1000} seconds and was stopped.`, 'query_timeout');
    if (type === 'TOO_MANY_ROWS_OR_BYTES') return new ResultTooLargeError(maxBytes);
    if (type === 'MEMORY_LIMIT_EXCEEDED') return new QueryExecutionError('the query needed more memory than one query may use; read fewer rows or group by fewer values.');
    // The printer writes only what ClickHouse takes; a refusal of its SQL is worth an operator's look.
    this.log.warn({ err: error }, 'a printed HogQL query was refused by ClickHouse');
    // ClickHouse's message goes on with the query as it ran ("In scope SELECT …"): the cause alone.
    return new QueryExecutionError((error as Error).message.split(/: In scope /)[0]!.trim());
  }
}
