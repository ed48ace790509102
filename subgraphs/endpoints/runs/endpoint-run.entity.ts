import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * The log of runs (PostHog's query log): what `last_execution_times` reads, and what an operator
 * reads to see which endpoints are used, how long they take and how they fail.
 */
@Entity({ tableName: 'endpoint_runs' })
@Index({ properties: ['environment_id', 'endpoint_name', 'started_at'] })
export class EndpointRun {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'integer' })
  environment_id!: number;

  @Property({ type: 'text' })
  endpoint_name!: string;

  @Property({ type: 'integer' })
  version!: number;

  /** Runs made through a personal API key: the ones `last_execution_times` counts, as PostHog's. */
  @Property({ type: 'boolean' })
  by_personal_api_key!: boolean;

  @Property({ type: 'text', nullable: true })
  client_query_id: string | null = null;

  @Property({ type: 'timestamptz' })
  started_at!: Date;

  @Property({ type: 'integer' })
  duration_ms!: number;

  /** `cache`, `materialized` or `live`: where the answer came from. */
  @Property({ type: 'text' })
  source!: string;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;
}
