import { ClickHouse } from '../../subgraphs/shared/clickhouse/clickhouse.js';
import { percentiles } from './load.runner.js';
import { PROGRESS_PREFIX, RESULT_PREFIX, type EngineAnswers, type EngineTask } from './events.engine-task.js';
import { benchEvent, clickhouseEventsInsert } from './events.generator.js';

/*
 * The engine's side of the events bench, run by events.engine-task.ts as a process of its own:
 * the chDB directory of CLICKHOUSE_URL opened as the platform opens it (subgraphs/shared/
 * clickhouse/clickhouse.ts: @clickhouse/client over chdb/connection), one task done, its answer
 * printed as one line, the directory let go.
 */

/** Rows one INSERT … SELECT loads: a statement stays well within the client's request timeout. */
const LOAD_CHUNK = 500_000;
/** The scratch table of the direct insert: the events table's columns, engine and settings. */
const DIRECT_TABLE = 'bench_direct_events';

async function main(): Promise<void> {
  const task = JSON.parse(process.argv[2] ?? '{}') as EngineTask;
  const clickhouse = ClickHouse.open(process.env.CLICKHOUSE_URL!);
  let answer: EngineAnswers[EngineTask['kind']];
  try {
    answer = await run(clickhouse, task);
  } finally {
    await clickhouse.close();
  }
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(answer)}\n`);
}

function run(clickhouse: ClickHouse, task: EngineTask): Promise<EngineAnswers[EngineTask['kind']]> {
  switch (task.kind) {
    case 'load':
      return load(clickhouse, task);
    case 'direct-insert':
      return directInsert(clickhouse, task);
    case 'queries':
      return queries(clickhouse, task);
    case 'copy-events':
      return copyEvents(clickhouse, task.to);
    case 'count':
      return count(clickhouse, task.team);
  }
}

/** Events [from, to) by INSERT … SELECT FROM numbers(), in chunks, with progress. */
async function load(clickhouse: ClickHouse, task: Extract<EngineTask, { kind: 'load' }>): Promise<EngineAnswers['load']> {
  const started = performance.now();
  for (let from = task.from; from < task.to; from += LOAD_CHUNK) {
    const to = Math.min(task.to, from + LOAD_CHUNK);
    // Bulk rows, each distinct: no deduplication token (chDB keeps one on the connection otherwise).
    await clickhouse.command(clickhouseEventsInsert(clickhouse.database, task.team, task.t0, from, to), {}, { insert_deduplication_token: '', insert_deduplicate: 0 });
    progress(`ClickHouse: ${(to - task.from).toLocaleString('en')} of ${(task.to - task.from).toLocaleString('en')} events by SQL`, started, to - task.from);
  }
  return { ms: performance.now() - started };
}

/**
 * The same rows as `/batch/` sent, into a table like `events`, as the platform inserts a batch
 * (event.clickhouse.ts: JSONCompactEachRow, synchronous, a deduplication token per batch), the
 * same batches as many at a time as `/batch/` had senders. The rows are made before the clock starts.
 */
async function directInsert(clickhouse: ClickHouse, task: Extract<EngineTask, { kind: 'direct-insert' }>): Promise<EngineAnswers['direct-insert']> {
  const table = `${clickhouse.database}.${DIRECT_TABLE}`;
  await clickhouse.command(`DROP TABLE IF EXISTS ${table}`);
  await clickhouse.command(`CREATE TABLE ${table} AS ${clickhouse.database}.events`);
  const now = clickhouseTime(new Date().toISOString());
  const batches: unknown[][][] = [];
  for (let from = task.from; from < task.to; from += task.batchSize) {
    const batch: unknown[][] = [];
    for (let i = from; i < Math.min(task.to, from + task.batchSize); i += 1) {
      const event = benchEvent(i, task.t0);
      batch.push([event.uuid, event.event, JSON.stringify(event.properties), clickhouseTime(event.timestamp), task.team, event.distinct_id, now]);
    }
    batches.push(batch);
  }
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: task.senders }, async () => {
      while (next < batches.length) {
        const index = next++;
        await clickhouse.insert({
          table,
          columns: ['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'created_at'],
          format: 'JSONCompactEachRow',
          values: batches[index]!,
          clickhouse_settings: { insert_deduplication_token: `bench-direct-${task.from}-${index}`, insert_deduplicate: 1, insert_distributed_sync: 1 },
        });
      }
    }),
  );
  const ms = performance.now() - started;
  const [{ rows }] = (await clickhouse.query<{ rows: number }>(`SELECT count() AS rows FROM ${table}`, {}, { output_format_json_quote_64bit_integers: 0 })) as [{ rows: number }];
  await clickhouse.command(`DROP TABLE ${table}`);
  return { ms, rows };
}

/** Each printed query `runs` times in a row, as the platform's reader sends it (its settings, its parameters). */
async function queries(clickhouse: ClickHouse, task: Extract<EngineTask, { kind: 'queries' }>): Promise<EngineAnswers['queries']> {
  const timings: Record<string, number[]> = {};
  const rows: Record<string, number> = {};
  for (const query of task.queries) {
    timings[query.name] = [];
    for (let run = 0; run < task.runs; run += 1) {
      const started = performance.now();
      const answer = await clickhouse.query(query.sql, query.params, { ...query.settings, output_format_json_quote_64bit_integers: 0 });
      timings[query.name]!.push(performance.now() - started);
      rows[query.name] = answer.length;
    }
    progress(`engine: ${query.name} p50 ${percentiles(timings[query.name]!).p50.toFixed(1)} ms`);
  }
  return { timings, rows };
}

/**
 * Every event into `<to>.events`, a table made like this database's, a month at a time, in a
 * database made afresh (the platform's migrations then make the rest of it, as on a first start).
 */
async function copyEvents(clickhouse: ClickHouse, to: string): Promise<EngineAnswers['copy-events']> {
  const source = `${clickhouse.database}.events`;
  await clickhouse.command(`DROP DATABASE IF EXISTS ${to}`);
  await clickhouse.command(`CREATE DATABASE ${to}`);
  await clickhouse.command(`CREATE TABLE ${to}.events AS ${source}`);
  const months = await clickhouse.query<{ month: number }>(`SELECT DISTINCT toYYYYMM(timestamp) AS month FROM ${source} ORDER BY month`, {}, { output_format_json_quote_64bit_integers: 0 });
  const started = performance.now();
  for (const { month } of months) {
    await clickhouse.command(`INSERT INTO ${to}.events SELECT * FROM ${source} WHERE toYYYYMM(timestamp) = {month:UInt32}`, { month }, { insert_deduplication_token: '', insert_deduplicate: 0 });
  }
  const [{ rows }] = (await clickhouse.query<{ rows: number }>(`SELECT count() AS rows FROM ${to}.events`, {}, { output_format_json_quote_64bit_integers: 0 })) as [{ rows: number }];
  progress(`copied ${rows.toLocaleString('en')} events into ${to}.events`, started, rows);
  return { ms: performance.now() - started, rows };
}

async function count(clickhouse: ClickHouse, team: number): Promise<EngineAnswers['count']> {
  const [{ events }] = (await clickhouse.query<{ events: number }>(`SELECT count() AS events FROM ${clickhouse.database}.events FINAL WHERE team_id = {team:Int64}`, { team }, { output_format_json_quote_64bit_integers: 0 })) as [{ events: number }];
  return { events };
}

/** ClickHouse's DateTime64 text of an ISO instant (as event.clickhouse.ts writes it). */
function clickhouseTime(iso: string): string {
  return iso.replace('T', ' ').replace(/Z$/, '');
}

function progress(line: string, started?: number, rows?: number): void {
  const rate = started !== undefined && rows !== undefined ? ` (${Math.round(rows / ((performance.now() - started) / 1000)).toLocaleString('en')} rows/s)` : '';
  process.stdout.write(`${PROGRESS_PREFIX}${line}${rate}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
