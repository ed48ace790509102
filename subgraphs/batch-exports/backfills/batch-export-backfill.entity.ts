import { Entity, Index, ManyToOne, Property, type Ref } from '@mikro-orm/core';
import { BatchExport } from '../exports/batch-export.entity.js';
import { RunStatus } from '../runs/batch-export-run.entity.js';
import { EnvironmentEntity } from '../../shared/db/base.entity.js';

/** A backfill: one run per interval of a past range, made at once and exported in order. */
@Entity({ tableName: 'batch_export_backfills' })
@Index({ properties: ['environment_id', 'batch_export', 'created_at'] })
export class BatchExportBackfill extends EnvironmentEntity {
  @ManyToOne(() => BatchExport, { ref: true, deleteRule: 'cascade' })
  batch_export!: Ref<BatchExport>;

  @Property({ type: 'timestamptz', nullable: true })
  start_at!: Date | null;

  @Property({ type: 'timestamptz' })
  end_at!: Date;

  /** `Running` until every run has finished; then `Completed`, `Failed` (some run failed) or `Cancelled`. */
  @Property({ type: 'text' })
  status: RunStatus = RunStatus.Running;

  @Property({ type: 'integer' })
  total_runs: number = 0;

  @Property({ type: 'bigint', nullable: true })
  total_records_count: string | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  last_updated_at: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  finished_at: Date | null = null;
}
