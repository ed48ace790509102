import { once } from 'node:events';
import type pg from 'pg';
import { copyFrom } from '../../../shared/db/copy.js';
import type { ExportColumn, ExportPage } from '../../formats/export-columns.js';
import { DestinationError, type Delivery, type DeliveryContext } from '../destination.js';
import { connect, postgresFailure } from './postgres.connection.js';
import { copyEncoder, type TargetKind } from './copy.encoder.js';
import { createRunsTableSql, createTableSql, EVENTS_TABLE, PERSONS_TABLE, quoteIdent, RUNS_TABLE, tableForColumns } from './postgres.tables.js';

/**
 * Delivers a run in one transaction of the destination: the table (made when absent), the rows
 * (COPY; persons through a staging table, merged by distinct id where their versions are newer),
 * and the run's row in `_analytics_batch_export_runs`. An attempt that finds its run there was
 * delivered before (the process died before it could say so) and writes nothing: each run's rows
 * arrive exactly once.
 */
export async function deliverRows(context: DeliveryContext, pages: AsyncIterable<ExportPage>): Promise<Delivery> {
  const { config, run, batchExport } = context;
  const schema = String(config.schema ?? 'public');
  const table = String(config.table_name);
  const client = await connect(config);
  // A stopped run closes its connection: the server rolls the transaction back.
  const stop = () => void client.end().catch(() => undefined);
  context.signal.addEventListener('abort', stop, { once: true });
  try {
    await client.query('BEGIN');
    // Attempts of one run take turns: a second one (its worker took the run over from a silent
    // one) waits for the first's transaction, then finds the run delivered.
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`batch-export-run:${run.id}`]);
    const persons = batchExport.model === 'persons';
    const definition = context.columns.length && !isDefault(context.columns, persons) ? tableForColumns(context.columns) : persons ? PERSONS_TABLE : EVENTS_TABLE;
    await client.query(createTableSql(schema, table, definition, persons ? ['team_id', 'distinct_id'] : null));
    await client.query(createRunsTableSql(schema));
    const done = await client.query<{ records: string }>(`SELECT records FROM ${quoteIdent(schema)}.${quoteIdent(RUNS_TABLE)} WHERE run_id = $1`, [run.id]);
    if (done.rows[0]) {
      await client.query('ROLLBACK');
      context.log.info({ run: run.id }, 'run found delivered already: nothing written again');
      return { records: Number(done.rows[0].records), bytes: 0 };
    }
    const targets = await targetColumns(client, schema, table, context.columns);
    let delivery: Delivery;
    if (persons) {
      const stage = `stage_${run.id.replace(/-/g, '')}`;
      await client.query(`CREATE TEMPORARY TABLE ${quoteIdent(stage)} (LIKE ${quoteIdent(schema)}.${quoteIdent(table)}) ON COMMIT DROP`);
      delivery = await copyPages(client, `${quoteIdent(stage)}`, context.columns, targets, pages);
      await client.query(mergePersonsSql(schema, table, stage, targets.names));
    } else {
      delivery = await copyPages(client, `${quoteIdent(schema)}.${quoteIdent(table)}`, context.columns, targets, pages);
    }
    await client.query(`INSERT INTO ${quoteIdent(schema)}.${quoteIdent(RUNS_TABLE)} (run_id, batch_export_id, table_name, data_interval_start, data_interval_end, records) VALUES ($1, $2, $3, $4, $5, $6)`, [
      run.id,
      batchExport.id,
      table,
      run.data_interval_start,
      run.data_interval_end,
      delivery.records,
    ]);
    if (context.signal.aborted) throw new DestinationError('The run was stopped.', true);
    await client.query('COMMIT');
    return delivery;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw postgresFailure(error);
  } finally {
    context.signal.removeEventListener('abort', stop);
    await client.end().catch(() => undefined);
  }
}

function isDefault(columns: ExportColumn[], persons: boolean): boolean {
  const names = (persons ? PERSONS_TABLE : EVENTS_TABLE).map(([name]) => name);
  return columns.length === names.length && columns.every((column, index) => column.name === names[index]);
}

interface Targets {
  names: string[];
  sources: number[];
  kinds: TargetKind[];
}

/** The exported columns the table has (PostHog writes only those), and which of them are jsonb. */
async function targetColumns(client: pg.Client, schema: string, table: string, columns: ExportColumn[]): Promise<Targets> {
  const { rows } = await client.query<{ column_name: string; data_type: string }>(
    'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
    [schema, table],
  );
  const types = new Map(rows.map((row) => [row.column_name, row.data_type]));
  const targets: Targets = { names: [], sources: [], kinds: [] };
  columns.forEach((column, index) => {
    if (!types.has(column.name)) return;
    targets.names.push(column.name);
    targets.sources.push(index);
    targets.kinds.push(types.get(column.name) === 'jsonb' || types.get(column.name) === 'json' ? 'jsonb' : 'other');
  });
  if (targets.names.length === 0) throw new DestinationError(`Table ${schema}.${table} has none of the exported columns (${columns.map((column) => column.name).join(', ')})`, false);
  return targets;
}

async function copyPages(client: pg.Client, target: string, columns: ExportColumn[], targets: Targets, pages: AsyncIterable<ExportPage>): Promise<Delivery> {
  const encode = copyEncoder(columns, targets.sources, targets.kinds);
  const { stream, failed } = copyFrom(client, `COPY ${target} (${targets.names.map(quoteIdent).join(', ')}) FROM STDIN`);
  let records = 0;
  let bytes = 0;
  for await (const page of pages) {
    if (page.rows.length === 0) continue;
    const text = encode(page.rows);
    records += page.rows.length;
    bytes += Buffer.byteLength(text);
    if (!stream.write(text)) await Promise.race([once(stream, 'drain'), failed]);
  }
  stream.end();
  await Promise.race([once(stream, 'finish'), failed]);
  return { records, bytes };
}

/** Newer versions of a person (or of the person a distinct id names) replace the row; others stay. */
function mergePersonsSql(schema: string, table: string, stage: string, names: string[]): string {
  const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const list = names.map(quoteIdent).join(', ');
  const updates = names.filter((name) => name !== 'team_id' && name !== 'distinct_id').map((name) => `${quoteIdent(name)} = EXCLUDED.${quoteIdent(name)}`);
  const newer = ['person_version', 'person_distinct_id_version'].filter((name) => names.includes(name)).map((name) => `EXCLUDED.${quoteIdent(name)} > ${target}.${quoteIdent(name)}`);
  const action = updates.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${updates.join(', ')}${newer.length ? ` WHERE ${newer.join(' OR ')}` : ''}`;
  return `INSERT INTO ${target} (${list}) SELECT ${list} FROM ${quoteIdent(stage)} ON CONFLICT ("team_id", "distinct_id") ${action}`;
}
