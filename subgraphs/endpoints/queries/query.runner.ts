import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../shared/logger.js';
import { ValidationError } from '../../shared/errors.js';
import { clickhouseOf } from '../../shared/clickhouse/clickhouse.registry.js';
import { compileHogQL, type CompiledQuery, type CompileOptions, type HogQLNode, type HogQLType, type VariableValue } from '../hogql/compile/hogql.compiler.js';
import { printHogQLForClickHouse } from '../hogql/clickhouse/clickhouse.printer.js';
import { ClickHouseQueryExecutor } from './query.clickhouse.js';
import { QueryExecutor, type QueryRows } from './query.executor.js';
import type { PreparedQuery, VariableType } from './query.node.js';

/** ClickHouse's names of our column types, as PostHog's `types` answer them. */
const CLICKHOUSE_TYPES: Record<HogQLType, string> = {
  String: 'String',
  Integer: 'Int64',
  Float: 'Float64',
  Boolean: 'Bool',
  DateTime: "DateTime64(6, 'UTC')",
  Date: 'Date',
  UUID: 'UUID',
  JSON: 'String',
  Array: 'Array(String)',
  Tuple: 'Tuple',
  Null: 'Nullable(Nothing)',
  Unknown: 'String',
};

export interface QueryResult {
  columns: { name: string; type: HogQLType }[];
  rows: unknown[][];
  hasMore: boolean;
  limit: number;
  /** The SQL that ran, PostgreSQL's or ClickHouse's (a debug key of the run answer). */
  sql: string;
  ms: number;
}

export interface RunOptions {
  /** Values given by the caller, by code name; declared defaults fill the rest. */
  variables: Record<string, unknown>;
  limit?: number;
  timezone?: string;
  timeoutMs?: number;
}

/** Compiles a prepared query with the caller's variables and runs it for one team. */
export async function runQuery(em: EntityManager, log: Logger, teamId: number, prepared: PreparedQuery, options: RunOptions): Promise<QueryResult> {
  return runCompiled(em, log, teamId, prepared.ast, { variables: queryVariables(prepared, options), limit: options.limit, timezone: options.timezone }, options.timeoutMs);
}

export function compileQuery(prepared: PreparedQuery, options: Omit<RunOptions, 'timeoutMs'>): CompiledQuery {
  return compileHogQL(prepared.ast, { variables: queryVariables(prepared, options), limit: options.limit, timezone: options.timezone });
}

/** The variables a run binds: the caller's, declared defaults for the rest. */
function queryVariables(prepared: PreparedQuery, options: Pick<RunOptions, 'variables'>): Record<string, VariableValue> {
  const variables: Record<string, VariableValue> = {};
  for (const declared of prepared.variables) {
    const value = Object.hasOwn(options.variables, declared.code_name) ? options.variables[declared.code_name] : declared.value;
    if (value === undefined) throw new ValidationError(`Required variable '${declared.code_name}' not provided`, 'variables');
    variables[declared.code_name] = { value, type: declared.type };
  }
  return variables;
}

/** Runs a query the platform built itself (no variables), for one team. */
export async function runBuiltQuery(em: EntityManager, log: Logger, teamId: number, ast: HogQLNode, timezone: string): Promise<unknown[][]> {
  return (await runCompiled(em, log, teamId, ast, { variables: {}, timezone })).rows;
}

/**
 * Runs a HogQL AST for one team on the installation's events store: compiled for PostgreSQL, or
 * printed for ClickHouse where the events live there (the same checks, columns and limit).
 */
async function runCompiled(em: EntityManager, log: Logger, teamId: number, ast: HogQLNode, options: CompileOptions, timeoutMs?: number): Promise<QueryResult> {
  const clickhouse = clickhouseOf(em);
  const compiled = clickhouse ? printHogQLForClickHouse(ast, options, { environmentId: teamId, database: clickhouse.database }) : compileHogQL(ast, options);
  const started = performance.now();
  const { rows, hasMore }: QueryRows =
    'params' in compiled ? await new ClickHouseQueryExecutor(clickhouse!, log).run(teamId, compiled, timeoutMs) : await new QueryExecutor(em, log).run(teamId, compiled, timeoutMs);
  return { columns: compiled.columns, rows, hasMore, limit: compiled.limit, sql: compiled.sql, ms: performance.now() - started };
}

/** Stand-ins for variables without defaults: compiling needs a value; checking a query and typing its columns do not. */
const SAMPLE_VALUES: Record<VariableType, unknown> = { String: '', Number: 0, Boolean: false, List: [], Date: '2000-01-01' };

/** Compiles a query without running it (400 naming what the compiler does not know), with stand-in variable values. */
export function compileForCheck(prepared: PreparedQuery): CompiledQuery {
  const variables = Object.fromEntries(prepared.variables.map((variable) => [variable.code_name, variable.value ?? SAMPLE_VALUES[variable.type]]));
  return compileQuery(prepared, { variables });
}

/** PostHog's `types`: `[name, ClickHouse type]` per column. */
export function clickhouseTypes(columns: QueryResult['columns']): [string, string][] {
  return columns.map((column) => [column.name, CLICKHOUSE_TYPES[column.type] ?? 'String']);
}
