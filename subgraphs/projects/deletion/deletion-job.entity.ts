import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * A deleted project whose data is still to be removed. Written in the transaction that deletes the
 * project, so the work survives a restart; done (finished_at) once every subgraph has dropped the
 * data of its environments and the project's rows are gone.
 */
@Entity({ tableName: 'deletion_jobs' })
@Index({ properties: ['finished_at', 'id'] })
export class DeletionJob {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Property({ type: 'integer' })
  project_id!: number;

  @Property({ type: 'jsonb' })
  environment_ids: number[] = [];

  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: 'text', nullable: true })
  last_error: string | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  finished_at: Date | null = null;
}
