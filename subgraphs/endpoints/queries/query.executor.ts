import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { ingestionFacade } from '../../ingestion/facade.js';
import { config } from '../../shared/config.js';
import { AppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { FairSlots } from '../../shared/subgraph/fair-slots.js';
import type { CompiledQuery } from '../hogql/compile/hogql.compiler.js';
import { lost, readRows } from './query.reader.js';

const { readerRole: HOGQL_READER_ROLE, teamSetting: HOGQL_TEAM_SETTING } = ingestionFacade.querySurface;

/**
 * Queries (runs, refreshes, export pages) running at once in this process (QUERY_SLOTS): fewer
 * than the subgraph's pool holds connections, so that slow queries leave connections to everything
 * else (records, the run log, other subgraphs' reads). Shared fairly between teams: one team's
 * slow queries leave slots free for the others, and the others wait their turn across teams.
 */
let executions: FairSlots | undefined;
export const querySlots = () => (executions ??= new FairSlots(config().QUERY_SLOTS));

/** How long one query may run before PostgreSQL stops it (ENDPOINT_QUERY_TIMEOUT_SECONDS). */
export const queryTimeoutMs = () => config().ENDPOINT_QUERY_TIMEOUT_SECONDS * 1000;

export interface QueryRows {
  rows: unknown[][];
  /** More rows existed than those answered (past the row limit, or past the bytes when truncated). */
  hasMore: boolean;
  /** Reading stopped at `maxBytes` (only with `partial`): the rows are those read until then. */
  truncated: boolean;
}

/** What one run may read. */
export interface QueryLimits {
  /** Bytes of rows read at most (QUERY_MAX_RESULT_BYTES by default); past them a 400 `result_too_large`. */
  maxBytes?: number;
  /**
   * At `maxBytes`, answer the whole rows read so far with `truncated` instead of failing (an
   * export page ends early and the next starts after its last row). A single row past `maxBytes`
   * is still the 400.
   */
  partial?: boolean;
}

/** 400: the query was valid but PostgreSQL could not finish it (a timeout, a division by zero). */
export class QueryExecutionError extends AppError {
  constructor(detail: string, code = 'query_failed') {
    super(400, 'validation_error', code, `Query execution failed: ${detail}`, 'query');
  }
}

// Values as PostHog's query runner answers them: numbers as numbers, times as ISO 8601 in UTC.
export const ANSWER_PARSERS: Record<number, (text: string) => unknown> = {
  20: Number, // int8
  1700: Number, // numeric
  1184: (text) => `${text.replace(' ', 'T').replace(/\+00(:00)?$/, '')}Z`, // timestamptz (the session is in UTC)
  1114: (text) => `${text.replace(' ', 'T')}Z`, // timestamp
  1082: (text) => text, // date, as YYYY-MM-DD (pg would make a local-midnight Date of it)
  // json and jsonb stay text: PostHog answers a JSON column (`properties`) as a string.
  114: (text) => text,
  3802: (text) => text,
};

/**
 * Runs a compiled query with every defence beneath the compiler: a read-only transaction, the
 * reader role (one team's rows of the query views, by row-level security), the team set for this
 * transaction only, a statement timeout, an empty search path (only the schema-qualified views and
 * built-in functions the compiler emits resolve) and the row cap the compiler put in its LIMIT.
 */
export class QueryExecutor {
  constructor(
    private readonly em: EntityManager,
    private readonly log: Logger,
  ) {}

  async run(teamId: number, compiled: CompiledQuery, timeoutMs = queryTimeoutMs(), limits: QueryLimits = {}): Promise<QueryRows> {
    const release = await querySlots().acquire(teamId);
    try {
      return await this.execute(teamId, compiled, timeoutMs, limits);
    } finally {
      release();
    }
  }

  private async execute(teamId: number, compiled: CompiledQuery, timeoutMs: number, limits: QueryLimits): Promise<QueryRows> {
    const knex = this.em.getConnection().getKnex();
    const client = (await knex.client.acquireConnection()) as pg.Client;
    try {
      await client.query(setUp(teamId, timeoutMs, await readerRoleUsable(client)));
      const query = {
        text: compiled.sql,
        values: compiled.values,
        // Always the extended protocol (pg's option, not in its types): one statement, whatever the text holds.
        queryMode: 'extended',
        rowMode: 'array',
        types: { getTypeParser: ((oid: number, format?: string) => ANSWER_PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as never },
      };
      const { rows, truncated } = await readRows(client, query as pg.QueryArrayConfig, { maxBytes: limits.maxBytes ?? config().QUERY_MAX_RESULT_BYTES, partial: limits.partial ?? false });
      const overLimit = rows.length > compiled.limit;
      return { rows: overLimit ? rows.slice(0, compiled.limit) : rows, hasMore: overLimit || truncated, truncated };
    } catch (error) {
      throw this.failure(error, timeoutMs);
    } finally {
      let broken = lost(client);
      if (!broken) {
        await client.query('rollback').catch(() => {
          broken = true;
        });
      }
      await knex.client.releaseConnection(broken ? destroyed(client) : client);
    }
  }

  /**
   * PostgreSQL's refusals of the query as 400s: whatever it says of the query itself (data errors,
   * a subquery with more than one row, a join it cannot plan, the limits of the reader role). What
   * is the server's, not the query's, stays a server error: connections (08), resources (53),
   * the operator (57P), the system (58) and internal errors (XX).
   */
  private failure(error: unknown, timeoutMs: number): unknown {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return error;
    if (code === '57014') return new QueryExecutionError(`the query ran longer than ${timeoutMs / 1000} seconds and was stopped.`, 'query_timeout');
    if (SERVER_CLASSES.some((prefix) => code.startsWith(prefix))) return error;
    // The compiler emits only what PostgreSQL takes; a refusal of its SQL is worth an operator's look.
    if (code.startsWith('42') || code.startsWith('0A')) this.log.warn({ err: error }, 'a compiled HogQL query was refused by PostgreSQL');
    return new QueryExecutionError((error as Error).message);
  }
}

/** SQLSTATE classes that are the server's trouble, not the query's. */
const SERVER_CLASSES = ['08', '53', '57P', '58', 'XX'];

/**
 * The transaction a query runs in, begun in one round trip (several statements, no parameters: the
 * values are our own integers). Everything set is local to it, so the connection goes back to the
 * pool as it came.
 */
function setUp(teamId: number, timeoutMs: number, asReader: boolean): string {
  if (!Number.isSafeInteger(teamId)) throw new Error(`not a team id: ${teamId}`);
  const settings = [
    `set_config('statement_timeout', '${Math.max(1, Math.round(timeoutMs))}ms', true)`,
    "set_config('search_path', 'pg_catalog, pg_temp', true)",
    "set_config('timezone', 'UTC', true)",
    `set_config('${HOGQL_TEAM_SETTING}', '${teamId}', true)`,
  ];
  // The settings first: the reader role may not call set_config (the migration took it from PUBLIC).
  return ['begin read only', `select ${settings.join(', ')}`, ...(asReader ? [`set local role "${HOGQL_READER_ROLE}"`] : [])].join('; ');
}

/** Says at start when queries cannot run as the reader role (the platform's role may not create or take it). */
export async function warnWithoutReaderRole(em: EntityManager, log: Logger): Promise<void> {
  const [row] = await em.execute<{ ok: boolean }[]>(READER_ROLE_USABLE, [HOGQL_READER_ROLE, HOGQL_READER_ROLE]);
  if (row?.ok !== true) {
    log.warn({ role: HOGQL_READER_ROLE }, 'HogQL queries run as the platform role: the reader role is missing or cannot be taken (the views still filter by team)');
    return;
  }
  const [settable] = await em.execute<{ yes: boolean }[]>("select has_function_privilege(?, 'pg_catalog.set_config(text, text, boolean)', 'EXECUTE') as yes", [HOGQL_READER_ROLE]);
  if (settable?.yes) log.warn({ role: HOGQL_READER_ROLE }, 'the HogQL reader role may call set_config (it could not be revoked from PUBLIC): a query that escaped the compiler could change its role or team');
}

const READER_ROLE_USABLE = `select exists (select 1 from pg_roles where rolname = ?) and coalesce(pg_has_role(current_user, (select oid from pg_roles where rolname = ?), 'MEMBER'), false) as ok`;

/** Whether this database has the reader role and the platform's role may take it (checked once per connection). */
const usable = new WeakMap<pg.Client, boolean>();
async function readerRoleUsable(client: pg.Client): Promise<boolean> {
  let known = usable.get(client);
  if (known === undefined) {
    const { rows } = await client.query<{ ok: boolean }>(READER_ROLE_USABLE.replace(/\?/g, () => '$1'), [HOGQL_READER_ROLE]);
    known = rows[0]?.ok === true;
    usable.set(client, known);
  }
  return known;
}

/** A connection whose transaction could not be ended is not returned to the pool as it is. */
function destroyed(client: pg.Client): pg.Client {
  (client as unknown as { __knex__disposed?: unknown }).__knex__disposed = new Error('connection broken');
  return client;
}

