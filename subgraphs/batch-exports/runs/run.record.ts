import { Field, Float, ID, ObjectType } from 'type-graphql';
import { Paginated } from '../../shared/subgraph/pagination.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

/** A run as PostHog's API shows it. */
@ObjectType('BatchExportRun')
export class BatchExportRunRecord {
  @Field(() => ID)
  id!: string;

  @Field({ description: '`Starting`, `Running`, `Completed`, `Failed`, `FailedRetryable` or `Cancelled`.' })
  status!: string;

  @Field(() => Float, { nullable: true })
  records_completed!: number | null;

  @Field(() => Float, { nullable: true })
  records_total_count!: number | null;

  @Field(() => Float, { nullable: true })
  bytes_exported!: number | null;

  @Field(() => String, { nullable: true, description: 'The destination\'s words when the last try failed.' })
  latest_error!: string | null;

  @Field(() => Date, { nullable: true })
  data_interval_start!: Date | null;

  @Field()
  data_interval_end!: Date;

  @Field(() => JSONScalar, { nullable: true, description: 'What the destination holds of the run: the files written (S3), the chunks accepted (HTTP).' })
  cursor!: Record<string, unknown> | null;

  @Field(() => Float, { description: 'Tries so far.' })
  attempts!: number;

  @Field()
  created_at!: Date;

  @Field()
  last_updated_at!: Date;

  @Field(() => Date, { nullable: true })
  finished_at!: Date | null;

  @Field(() => ID)
  batch_export!: string;

  @Field(() => ID, { nullable: true, description: 'The backfill that made it; null for a scheduled run.' })
  backfill!: string | null;
}

@ObjectType('BatchExportRunList')
export class BatchExportRunList extends Paginated(BatchExportRunRecord) {}

@ObjectType('BatchExportRunCancelled')
export class CancelledRecord {
  @Field()
  cancelled!: boolean;
}
