import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { BackfillCreatedRecord } from '../backfills/backfill.record.js';
import { ListRunsArgs, RunArgs } from './run.inputs.js';
import { BatchExportRunList, BatchExportRunRecord, CancelledRecord } from './run.record.js';
import { RunService } from './run.service.js';

const service = ({ em, log }: SubgraphContext) => new RunService(em, log);

@Resolver(() => BatchExportRunRecord)
export class RunResolver {
  @Authorized('batch_export:read')
  @Query(() => BatchExportRunList, { description: "An export's runs, newest first by default." })
  batch_export_runs(@Args() args: ListRunsArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).list(ctx.actor, args);
  }

  @Authorized('batch_export:read')
  @Query(() => BatchExportRunRecord)
  batch_export_run(@Args() args: RunArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, args);
  }

  @Authorized('batch_export:write')
  @Mutation(() => BackfillCreatedRecord, { description: "Exports the run's interval again (a backfill of it)." })
  retry_batch_export_run(@Args() args: RunArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).retry(ctx.actor, args);
  }

  @Authorized('batch_export:write')
  @Mutation(() => CancelledRecord, { description: 'Stops a run that has not finished.' })
  cancel_batch_export_run(@Args() args: RunArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).cancel(ctx.actor, args);
  }
}
