import type { BatchExportRun } from './batch-export-run.entity.js';
import type { BatchExportRunRecord } from './run.record.js';

const count = (value: string | null) => (value === null ? null : Number(value));

export function toRunRecord(run: BatchExportRun): BatchExportRunRecord {
  return {
    id: run.id,
    status: run.status,
    records_completed: count(run.records_completed),
    records_total_count: count(run.records_total_count),
    bytes_exported: count(run.bytes_exported),
    latest_error: run.latest_error,
    data_interval_start: run.data_interval_start,
    data_interval_end: run.data_interval_end,
    cursor: run.cursor,
    attempts: run.attempt,
    created_at: run.created_at,
    last_updated_at: run.last_updated_at,
    finished_at: run.finished_at,
    batch_export: run.batch_export.id,
    backfill: run.backfill_id,
  };
}
