import { ArgsType, Field, Int } from 'type-graphql';
import { EnvironmentArgs, EnvironmentPageArgs } from '../../shared/subgraph/environment.args.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

export { EnvironmentArgs };

@ArgsType()
export class ListBatchExportsArgs extends EnvironmentPageArgs {}

@ArgsType()
export class BatchExportArgs extends EnvironmentArgs {
  @Field({ description: 'The batch export id (a UUID).' })
  id!: string;
}

/** The Batch export settings of API document section 2, shared by create, update and the destination tests. */
@ArgsType()
export class BatchExportSettingsArgs extends EnvironmentArgs {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true, description: '`events` (the default) or `persons`.' })
  model?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: '`{"type": "S3" | "Postgres" | "HTTP", "config": {…}}`; secret config fields are write-only.' })
  destination?: unknown;

  @Field(() => String, { nullable: true, description: '`hour`, `day`, `week`, `every 5 minutes` or `every 15 minutes`.' })
  interval?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Created paused (or, on update, pause and unpause as those operations do).' })
  paused?: boolean | null;

  @Field(() => String, { nullable: true, description: 'When the export was last paused (ISO 8601).' })
  last_paused_at?: string | null;

  @Field(() => String, { nullable: true, description: 'No run ends before this (ISO 8601).' })
  start_at?: string | null;

  @Field(() => String, { nullable: true, description: 'No run ends after this (ISO 8601).' })
  end_at?: string | null;

  @Field(() => String, { nullable: true, description: 'A `SELECT … FROM events` whose columns are exported instead of the destination\'s default fields.' })
  hogql_query?: string | null;

  @Field(() => Int, { nullable: true, description: 'Weekly exports: the day an interval starts (0 = Sunday … 6).' })
  offset_day?: number | null;

  @Field(() => Int, { nullable: true, description: 'Daily and weekly exports: the hour an interval starts (0–23), by `timezone`.' })
  offset_hour?: number | null;

  @Field(() => JSONScalar, { nullable: true, description: 'Property filters on the exported events: `[{"key", "operator", "type": "event" | "person", "value"}]`.' })
  filters?: unknown;

  @Field(() => String, { nullable: true, description: 'The IANA zone whose clock day and week intervals follow (UTC by default).' })
  timezone?: string | null;
}

@ArgsType()
export class UpdateBatchExportArgs extends BatchExportSettingsArgs {
  @Field({ description: 'The batch export id (a UUID).' })
  id!: string;
}

@ArgsType()
export class UnpauseBatchExportArgs extends BatchExportArgs {
  @Field(() => Boolean, { nullable: true, description: 'Also export what the schedule skipped while paused (a backfill).' })
  backfill?: boolean | null;
}
