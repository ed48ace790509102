import { Field, Float, ID, ObjectType } from 'type-graphql';
import { Paginated } from '../../shared/subgraph/pagination.js';

@ObjectType('BatchExportBackfillProgress')
export class BackfillProgressRecord {
  @Field(() => Float)
  total_runs!: number;

  @Field(() => Float)
  finished_runs!: number;

  @Field(() => Float, { description: 'finished_runs / total_runs.' })
  progress!: number;
}

/** A backfill as PostHog's API shows it. */
@ObjectType('BatchExportBackfill')
export class BackfillRecord {
  @Field(() => ID)
  id!: string;

  @Field(() => Date, { nullable: true })
  start_at!: Date | null;

  @Field()
  end_at!: Date;

  @Field({ description: '`Running`, `Completed`, `Failed` or `Cancelled`.' })
  status!: string;

  @Field()
  created_at!: Date;

  @Field()
  last_updated_at!: Date;

  @Field(() => Date, { nullable: true })
  finished_at!: Date | null;

  @Field(() => Float, { nullable: true })
  total_records_count!: number | null;

  @Field(() => BackfillProgressRecord, { nullable: true })
  progress!: BackfillProgressRecord | null;

  @Field(() => ID)
  batch_export!: string;
}

@ObjectType('BatchExportBackfillList')
export class BackfillList extends Paginated(BackfillRecord) {}

/** What creating a backfill answers (PostHog's `{"backfill_id"}`). */
@ObjectType('BatchExportBackfillCreated')
export class BackfillCreatedRecord {
  @Field(() => ID)
  backfill_id!: string;
}
