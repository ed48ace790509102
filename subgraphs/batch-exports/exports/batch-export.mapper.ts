import type { EntityManager } from '@mikro-orm/postgresql';
import { BatchExportRun } from '../runs/batch-export-run.entity.js';
import { toRunRecord } from '../runs/run.mapper.js';
import type { BatchExportRunRecord } from '../runs/run.record.js';
import type { BatchExport } from './batch-export.entity.js';
import type { BatchExportRecord } from './batch-export.record.js';
import { offsetsOf } from './batch-export.rules.js';

const LATEST_RUNS = 10;

/** The records of exports, each with its ten newest runs (one query for all of them). */
export async function toRecords(em: EntityManager, exports: BatchExport[]): Promise<BatchExportRecord[]> {
  const latest = await latestRuns(em, exports.map((item) => item.id));
  return exports.map((item) => toRecord(item, latest.get(item.id) ?? []));
}

export function toRecord(item: BatchExport, latestRuns: BatchExportRunRecord[]): BatchExportRecord {
  return {
    id: item.id,
    team_id: item.environment_id,
    name: item.name,
    model: item.model,
    destination: { type: item.destination_type, config: item.destination_config },
    interval: item.interval,
    paused: item.paused,
    created_at: item.created_at,
    last_updated_at: item.last_updated_at,
    last_paused_at: item.last_paused_at,
    start_at: item.start_at,
    end_at: item.end_at,
    latest_runs: latestRuns,
    hogql_query: item.hogql_query,
    schema: item.schema,
    filters: item.filters,
    timezone: item.timezone,
    ...offsetsOf(item.interval, item.interval_offset),
  };
}

async function latestRuns(em: EntityManager, ids: string[]): Promise<Map<string, BatchExportRunRecord[]>> {
  const byExport = new Map<string, BatchExportRunRecord[]>();
  if (ids.length === 0) return byExport;
  const rows = await em.execute<{ id: string }[]>(
    `select id from (select id, row_number() over (partition by batch_export_id order by created_at desc, data_interval_end desc) as n
                       from "batch_exports"."batch_export_runs" where batch_export_id in (?)) ranked
      where n <= ${LATEST_RUNS}`,
    [ids],
  );
  const runs = await em.find(BatchExportRun, { id: { $in: rows.map((row) => row.id) } }, { orderBy: { created_at: 'desc', data_interval_end: 'desc' } });
  for (const run of runs) {
    const list = byExport.get(run.batch_export.id) ?? [];
    list.push(toRunRecord(run));
    byExport.set(run.batch_export.id, list);
  }
  return byExport;
}
