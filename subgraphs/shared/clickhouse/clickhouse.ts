import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings, type InsertParams } from '@clickhouse/client';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { ConfigError } from '../config.js';
import { parseClickHouseUrl, type ClickHouseTarget } from './clickhouse-url.js';
import { asUnavailable } from './clickhouse.errors.js';

/** What a reader's query may use: ClickHouse stops it past any of these. */
export interface ReadLimits {
  /** Seconds before the query is stopped (ENDPOINT_QUERY_TIMEOUT_SECONDS, or the refresh's). */
  seconds: number;
  /** Rows of the result; more is an error, never a silent cut. */
  rows: number;
  /** Bytes of the result, uncompressed (QUERY_MAX_RESULT_BYTES). */
  bytes: number;
  /** Memory of the query on the server. */
  memoryBytes: number;
}

/**
 * The events store on ClickHouse: a writer (inserts, DDL, deletions) and a reader of its own for
 * tenants' queries. On chDB a connection keeps the settings a query sets (a `readonly` query
 * leaves its connection read-only for every later query), so the reader never shares one with
 * the writer, and every read sets all of its limits again. A call that fails because ClickHouse is
 * away throws EventsStoreUnavailableError (503).
 */
export class ClickHouse {
  private constructor(
    readonly target: ClickHouseTarget,
    /** Set with CLICKHOUSE_CLUSTER: the DDL runs `ON CLUSTER` it. */
    readonly cluster: string | null,
    private readonly writer: ClickHouseClient,
    private reader: ClickHouseClient,
  ) {}

  /** The database every table lives in. */
  get database(): string {
    return this.target.database;
  }

  /** Opens the clients of CLICKHOUSE_URL; the database itself is made by {@link migrateClickHouse}. */
  static open(url: string, cluster: string | null = null): ClickHouse {
    const target = parseClickHouseUrl(url);
    return new ClickHouse(target, cluster, client(target, WRITER_SETTINGS), client(target, {}));
  }

  /**
   * A reader's query: read-only, within `limits`, its values bound as `{name:Type}` parameters,
   * with the settings its SQL's meaning depends on. 64-bit integers come as numbers, as
   * PostgreSQL's reader gives them.
   */
  async read<Row>(query: string, params: Record<string, unknown>, limits: ReadLimits, settings: ClickHouseSettings = {}): Promise<Row[]> {
    const reader = this.reader;
    try {
      return await failing(async () => {
        const clickhouse_settings: ClickHouseSettings = { ...settings, output_format_json_quote_64bit_integers: 0, ...readSettings(limits) };
        const result = await reader.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings });
        return result.json<Row>();
      });
    } catch (error) {
      // A chDB connection whose query failed part-way through its result can hand what it had
      // read of it to the next query: the reader goes on with a connection of its own.
      if (this.target.kind === 'chdb' && this.reader === reader) {
        this.reader = client(this.target, {});
        void reader.close();
      }
      throw error;
    }
  }

  /** The platform's own query (pages, counts): the writer's connection, its values bound. */
  async query<Row>(query: string, params: Record<string, unknown> = {}, settings: ClickHouseSettings = {}): Promise<Row[]> {
    return failing(async () => {
      const result = await this.writer.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings: settings });
      return result.json<Row>();
    });
  }

  /** A statement without rows (DDL, `ALTER … DELETE`), its values bound. */
  async command(query: string, params: Record<string, unknown> = {}, settings: ClickHouseSettings = {}): Promise<void> {
    await failing(() => this.writer.command({ query, query_params: params, clickhouse_settings: settings }));
  }

  /**
   * Rows into a table, on the writer's connection (synchronous: answered once on disk). Its
   * deduplication token is the one given or none: on chDB a token set by an earlier insert stays
   * on the connection, and would drop this insert as a repeat of that one.
   */
  async insert<Row>(params: InsertParams<Readable, Row>): Promise<void> {
    await failing(() => this.writer.insert({ ...params, clickhouse_settings: { insert_deduplication_token: '', ...params.clickhouse_settings } }));
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.reader.close(), this.writer.close()]);
  }
}

/** Runs a call of the client, an outage thrown as EventsStoreUnavailableError. */
async function failing<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asUnavailable(error);
  }
}

/**
 * The writer's defaults: an insert answers once its rows are in a part on disk (synchronous,
 * never buffered by the server for later), and `mutations_sync` makes a deletion finish before
 * the call does.
 */
const WRITER_SETTINGS: ClickHouseSettings = { async_insert: 0, mutations_sync: '2' };

/**
 * `readonly=2`: no writes, no DDL, but the query's own limits may be set (`readonly=1` refuses
 * even those). `throw` on overflow: a result past a limit is an error, never a cut one.
 */
function readSettings(limits: ReadLimits): ClickHouseSettings {
  return {
    readonly: '2',
    max_execution_time: limits.seconds,
    timeout_overflow_mode: 'throw',
    max_result_rows: String(limits.rows),
    max_result_bytes: String(limits.bytes),
    result_overflow_mode: 'throw',
    max_memory_usage: String(limits.memoryBytes),
  };
}

/**
 * The client's own log is off: it writes plain text to the console, and every failure it would log
 * reaches the caller, which answers it and logs it with pino.
 */
const QUIET = { level: ClickHouseLogLevel.OFF };

function client(target: ClickHouseTarget, settings: ClickHouseSettings): ClickHouseClient {
  if (target.kind === 'http') {
    return createClient({ url: target.url, username: target.username, password: target.password, clickhouse_settings: settings, application: 'analytics-platform', log: QUIET });
  }
  return createClient({ connection: chdbConnection(target.path), clickhouse_settings: settings, log: QUIET });
}

type ChdbConnectionModule = { createChdbConnection(options: { path: string }): NonNullable<Parameters<typeof createClient>[0]>['connection'] };

/**
 * chDB's engine is installed apart (hundreds of megabytes, `npm run chdb:install`): loaded only for `chdb:`, and
 * its absence is the setting's one line rather than a stack.
 */
function chdbConnection(path: string): ReturnType<ChdbConnectionModule['createChdbConnection']> {
  let module: ChdbConnectionModule;
  try {
    module = createRequire(import.meta.url)('chdb/connection') as ChdbConnectionModule;
  } catch {
    throw new ConfigError('CLICKHOUSE_URL', 'chdb: needs the package chdb, which this install left out (npm run chdb:install adds it)');
  }
  return module.createChdbConnection({ path });
}
