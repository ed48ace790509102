import { ArgsType, Field, Int } from 'type-graphql';
import { EnvironmentArgs } from '../../shared/subgraph/environment.args.js';
import { BatchExportSettingsArgs } from '../exports/batch-export.inputs.js';

@ArgsType()
export class TestArgs extends EnvironmentArgs {
  @Field(() => String, { nullable: true, description: 'The destination type whose steps to list (`S3`, `Postgres`, `HTTP`).' })
  destination?: string | null;
}

@ArgsType()
export class RunTestStepNewArgs extends BatchExportSettingsArgs {
  @Field(() => Int, { nullable: true, description: 'Which step to run (0, the first, by default).' })
  step?: number | null;
}

@ArgsType()
export class RunTestStepArgs extends RunTestStepNewArgs {
  @Field({ description: 'The batch export id (a UUID): its stored config fills in what the request leaves out.' })
  id!: string;
}
