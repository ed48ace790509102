import { ArgsType, Field } from 'type-graphql';
import { EnvironmentPageArgs } from '../../shared/subgraph/environment.args.js';
import { BatchExportArgs } from '../exports/batch-export.inputs.js';

@ArgsType()
export class CreateBackfillArgs extends BatchExportArgs {
  @Field(() => String, { nullable: true, description: 'The first interval starts here (ISO 8601); a date alone is its midnight in UTC.' })
  start_at?: string | null;

  @Field(() => String, { nullable: true, description: 'The last interval ends here, in the past (ISO 8601).' })
  end_at?: string | null;
}

@ArgsType()
export class BackfillArgs extends BatchExportArgs {
  @Field({ description: 'The backfill id (a UUID).' })
  backfill_id!: string;
}

@ArgsType()
export class ListBackfillsArgs extends EnvironmentPageArgs {
  @Field({ description: 'The batch export id (a UUID).' })
  id!: string;
}
