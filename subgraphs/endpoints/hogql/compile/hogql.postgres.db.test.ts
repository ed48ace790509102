import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropDatabase } from '../../../shared/db/database.js';
import { compileHogQL, type CompileOptions } from './hogql.compiler.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';
import { trendsToHogQL } from '../trends/trends.query.js';
import { ANSWER_PARSERS } from '../../queries/query.executor.js';
import { HOGQL_CASES, HOGQL_FUNCTION_LISTS, HOGQL_ROWS, sortedRows, TRENDS_CASE } from '../hogql-cases.fixture.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

/** Tables shaped as the query views (plain tables will do: the views filter by team, we need none here). */
const SCHEMA = `
  create schema ingestion;
  create table ingestion.hogql_events (uuid uuid not null, event text not null, distinct_id text not null, "timestamp" timestamptz not null, properties jsonb not null, created_at timestamptz not null default now());
  create table ingestion.hogql_person_distinct_ids (distinct_id text not null, person_id uuid not null);
  create table ingestion.hogql_persons (id uuid not null, created_at timestamptz not null, properties jsonb not null, is_identified boolean not null);
  create table ingestion.hogql_groups (index int not null, key text not null, properties jsonb not null, created_at timestamptz not null, updated_at timestamptz not null);
`;

let url: string;
let client: pg.Client;

/** Rows into a table, one parameterised insert each. */
async function insert(table: string, rows: Record<string, unknown>[]): Promise<void> {
  for (const row of rows) {
    const columns = Object.keys(row);
    const values = columns.map((column) => (typeof row[column] === 'object' ? JSON.stringify(row[column]) : row[column]));
    await client.query(`insert into ingestion.${table} (${columns.map((column) => `"${column}"`).join(', ')}) values (${columns.map((_, index) => `$${index + 1}`).join(', ')})`, values);
  }
}

beforeAll(async () => {
  url = await createScratchDatabase(inject('databaseUrl'), 'hogql_compiler');
  client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(SCHEMA);
  await client.query("set timezone = 'UTC'");
  await insert('hogql_persons', HOGQL_ROWS.persons);
  await insert('hogql_person_distinct_ids', HOGQL_ROWS.distinctIds);
  await insert('hogql_groups', HOGQL_ROWS.groups);
  await insert('hogql_events', HOGQL_ROWS.events);
});

afterAll(async () => {
  await client?.end();
  if (url) await dropDatabase(url);
});

async function rows(query: string, options: Partial<CompileOptions> = {}): Promise<unknown[][]> {
  return run(compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, query), { variables: {}, ...options }));
}

/** Rows as the endpoint runner reads them (its type parsers), up to the query's limit. */
async function run(compiled: { sql: string; values: unknown[]; limit: number }): Promise<unknown[][]> {
  const types = { getTypeParser: ((oid: number, format?: string) => ANSWER_PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as never };
  const result = await client.query({ text: compiled.sql, values: compiled.values, rowMode: 'array', types });
  return (result.rows as unknown[][]).slice(0, compiled.limit);
}

describe('compileHogQL on PostgreSQL', () => {
  it.each(HOGQL_CASES)('$name', async ({ query, options, rows: expected, unordered }) => {
    const answer = await rows(query, options);
    expect(unordered ? sortedRows(answer) : answer).toEqual(unordered ? sortedRows(expected) : expected);
  });

  it('asks for one row more than the limit', async () => {
    const compiled = compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT event FROM events LIMIT 2'), { variables: {} });
    const result = await client.query({ text: compiled.sql, values: compiled.values });
    expect(result.rows).toHaveLength(3);
  });

  it('runs every function it maps', async () => {
    for (const list of HOGQL_FUNCTION_LISTS) await expect(rows(`SELECT ${list} FROM events`), list).resolves.toBeDefined();
  });

  it('runs a TrendsQuery compiled through the same compiler', async () => {
    expect(await run(compileHogQL(trendsToHogQL(TRENDS_CASE.query), { variables: {} }))).toEqual(TRENDS_CASE.rows);
  });
});
