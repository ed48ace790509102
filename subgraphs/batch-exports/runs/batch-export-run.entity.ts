import { Entity, Index, ManyToOne, Property, Unique, type Ref } from '@mikro-orm/core';
import { BatchExport } from '../exports/batch-export.entity.js';
import { EnvironmentEntity } from '../../shared/db/base.entity.js';

/** PostHog's run statuses (the ones this platform reaches). */
export const RunStatus = {
  Starting: 'Starting',
  Running: 'Running',
  Completed: 'Completed',
  Failed: 'Failed',
  FailedRetryable: 'FailedRetryable',
  Cancelled: 'Cancelled',
} as const;
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

/** Statuses a run leaves no more. */
export const FINISHED_STATUSES: readonly string[] = [RunStatus.Completed, RunStatus.Failed, RunStatus.Cancelled];

/**
 * One export of one interval. Scheduled runs are unique per interval (`origin` = `schedule`);
 * a backfill's runs carry its id as origin, so a backfill may export again what the schedule did.
 * `attempt` fences every write of a worker: one that lost its lease (another process took the run
 * over) changes nothing.
 */
@Entity({ tableName: 'batch_export_runs' })
@Unique({ properties: ['batch_export', 'origin', 'data_interval_end'] })
@Index({ properties: ['environment_id', 'batch_export', 'created_at'] })
@Index({ properties: ['status', 'heartbeat_at'] })
@Index({ properties: ['backfill_id', 'status'] })
export class BatchExportRun extends EnvironmentEntity {
  @ManyToOne(() => BatchExport, { ref: true, deleteRule: 'cascade' })
  batch_export!: Ref<BatchExport>;

  /** `schedule`, or the id of the backfill that made it. */
  @Property({ type: 'text' })
  origin!: string;

  @Property({ type: 'uuid', nullable: true })
  backfill_id: string | null = null;

  @Property({ type: 'text' })
  status: RunStatus = RunStatus.Starting;

  @Property({ type: 'timestamptz', nullable: true })
  data_interval_start!: Date | null;

  @Property({ type: 'timestamptz' })
  data_interval_end!: Date;

  @Property({ type: 'bigint', nullable: true })
  records_completed: string | null = null;

  @Property({ type: 'bigint', nullable: true })
  records_total_count: string | null = null;

  @Property({ type: 'bigint', nullable: true })
  bytes_exported: string | null = null;

  /** The destination's words, when the last attempt failed. */
  @Property({ type: 'text', nullable: true })
  latest_error: string | null = null;

  /** What the destination has of this run so far (files, chunks), so that a resumed attempt neither repeats nor leaves anything behind. */
  @Property({ type: 'jsonb', nullable: true })
  cursor: Record<string, unknown> | null = null;

  @Property({ type: 'integer' })
  attempt: number = 0;

  /** A run that failed and will be tried again is not taken before this. */
  @Property({ type: 'timestamptz', nullable: true })
  retry_at: Date | null = null;

  /** Written every few seconds by the worker holding the run; a stale one means that worker died. */
  @Property({ type: 'timestamptz', nullable: true })
  heartbeat_at: Date | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  last_updated_at: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  finished_at: Date | null = null;
}
