import { ArgsType, Field } from 'type-graphql';
import { EnvironmentPageArgs } from '../../shared/subgraph/environment.args.js';
import { BatchExportArgs } from '../exports/batch-export.inputs.js';

@ArgsType()
export class ListRunsArgs extends EnvironmentPageArgs {
  @Field({ description: 'The batch export id (a UUID).' })
  id!: string;

  @Field(() => String, { nullable: true, description: 'Only runs in this status (`Completed`, `Failed`, …).' })
  status?: string | null;

  @Field(() => String, { nullable: true, description: '`-created_at` (the default), `created_at`, `-data_interval_start` or `data_interval_start`.' })
  ordering?: string | null;
}

@ArgsType()
export class RunArgs extends BatchExportArgs {
  @Field({ description: 'The run id (a UUID).' })
  run_id!: string;
}
