import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { CancelledRecord } from '../runs/run.record.js';
import { BackfillArgs, CreateBackfillArgs, ListBackfillsArgs } from './backfill.inputs.js';
import { BackfillCreatedRecord, BackfillList, BackfillRecord } from './backfill.record.js';
import { BackfillService } from './backfill.service.js';

const service = ({ em, log }: SubgraphContext) => new BackfillService(em, log);

@Resolver(() => BackfillRecord)
export class BackfillResolver {
  @Authorized('batch_export:write')
  @Mutation(() => BackfillCreatedRecord, { description: 'Exports a past range: one run per interval, one after another.' })
  create_batch_export_backfill(@Args() args: CreateBackfillArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).create(ctx.actor, args);
  }

  @Authorized('batch_export:read')
  @Query(() => BackfillList, { description: "An export's backfills, newest first." })
  batch_export_backfills(@Args() args: ListBackfillsArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).list(ctx.actor, args);
  }

  @Authorized('batch_export:read')
  @Query(() => BackfillRecord)
  batch_export_backfill(@Args() args: BackfillArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, args);
  }

  @Authorized('batch_export:write')
  @Mutation(() => CancelledRecord, { description: "Cancels a running backfill's unfinished runs." })
  cancel_batch_export_backfill(@Args() args: BackfillArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).cancel(ctx.actor, args);
  }
}
