import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Paginated } from '../../shared/subgraph/pagination.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { BatchExportRunRecord } from '../runs/run.record.js';

@ObjectType('BatchExportDestination')
export class BatchExportDestinationRecord {
  @Field({ description: '`S3`, `Postgres` or `HTTP`.' })
  type!: string;

  @Field(() => JSONScalar, { description: 'The config without its secret fields.' })
  config!: Record<string, unknown>;
}

/** A batch export as PostHog's API shows it. */
@ObjectType('BatchExport')
export class BatchExportRecord {
  @Field(() => ID)
  id!: string;

  @Field(() => Int, { description: 'The environment (team) it belongs to.' })
  team_id!: number;

  @Field()
  name!: string;

  @Field({ description: '`events` or `persons`.' })
  model!: string;

  @Field(() => BatchExportDestinationRecord)
  destination!: BatchExportDestinationRecord;

  @Field()
  interval!: string;

  @Field()
  paused!: boolean;

  @Field()
  created_at!: Date;

  @Field()
  last_updated_at!: Date;

  @Field(() => Date, { nullable: true })
  last_paused_at!: Date | null;

  @Field(() => Date, { nullable: true })
  start_at!: Date | null;

  @Field(() => Date, { nullable: true })
  end_at!: Date | null;

  @Field(() => [BatchExportRunRecord], { description: 'The ten newest runs.' })
  latest_runs!: BatchExportRunRecord[];

  @Field(() => String, { nullable: true })
  hogql_query!: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'What `hogql_query` exports: `{fields: [{expression, alias}], values, hogql_query}`.' })
  schema!: Record<string, unknown> | null;

  @Field(() => JSONScalar, { nullable: true })
  filters!: unknown[] | null;

  @Field()
  timezone!: string;

  @Field(() => Int, { nullable: true })
  offset_day!: number | null;

  @Field(() => Int, { nullable: true })
  offset_hour!: number | null;
}

@ObjectType('BatchExportList')
export class BatchExportList extends Paginated(BatchExportRecord) {}

/** What pause and unpause answer (PostHog's `{"paused": …}`). */
@ObjectType('BatchExportPaused')
export class PausedRecord {
  @Field()
  paused!: boolean;
}
