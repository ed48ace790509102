import { randomUUID } from 'node:crypto';
import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique, type Ref } from '@mikro-orm/core';
import { registerEnumType } from 'type-graphql';
import { Endpoint } from './endpoint.entity.js';

/** PostHog's materialization states (its data-warehouse saved query statuses). */
export enum MaterializationState {
  Running = 'Running',
  Completed = 'Completed',
  Failed = 'Failed',
  Cancelled = 'Cancelled',
  Modified = 'Modified',
}
registerEnumType(MaterializationState, { name: 'EndpointMaterializationState', description: 'Running, Completed, Failed, Cancelled or Modified.' });

/** How often a materialized result is refreshed (PostHog's sync intervals). */
export const SYNC_FREQUENCIES = { '5min': 300, '30min': 1800, '1hour': 3600, '6hour': 21600, '12hour': 43200, '24hour': 86400, '7day': 604800, '30day': 2592000 } as const;
export type SyncFrequency = keyof typeof SYNC_FREQUENCIES;

/**
 * One version of an endpoint's query: a new one each time the query really changes. Runs name a
 * version (the latest by default); materialization belongs to a version, since its result is
 * that version's query's.
 */
@Entity({ tableName: 'endpoint_versions' })
@Unique({ properties: ['endpoint', 'version'] })
export class EndpointVersion {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Endpoint, { ref: true, deleteRule: 'cascade' })
  endpoint!: Ref<Endpoint>;

  /** Copied from the endpoint: materialized rows and runs are read by team without a join. */
  @Property({ type: 'integer' })
  environment_id!: number;

  @Property({ type: 'integer' })
  version!: number;

  @Property({ type: 'jsonb' })
  query!: Record<string, unknown>;

  @Property({ type: 'text' })
  description: string = '';

  @Property({ type: 'integer', nullable: true })
  cache_age_seconds: number | null = null;

  @Property({ type: 'boolean' })
  is_active: boolean = true;

  @Property({ type: 'integer', nullable: true })
  created_by_id: number | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'boolean' })
  is_materialized: boolean = false;

  @Property({ type: 'text', nullable: true })
  sync_frequency: SyncFrequency | null = null;

  @Enum({ items: () => MaterializationState, nullable: true })
  materialization_status: MaterializationState | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  last_materialized_at: Date | null = null;

  @Property({ type: 'text', nullable: true })
  materialization_error: string | null = null;

  /** Result columns of the materialized rows, with their types (as the run answers them). */
  @Property({ type: 'jsonb', nullable: true })
  materialized_columns: { name: string; type: string }[] | null = null;

  /** When the next refresh is due; a queued refresh job for another time is stale and does nothing. */
  @Property({ type: 'timestamptz', nullable: true })
  refresh_due_at: Date | null = null;

  /** Rows the last refresh kept; more existed when `materialized_has_more`. */
  @Property({ type: 'boolean' })
  materialized_has_more: boolean = false;
}
