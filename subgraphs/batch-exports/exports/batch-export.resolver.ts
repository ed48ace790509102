import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { BatchExportArgs, BatchExportSettingsArgs, ListBatchExportsArgs, UnpauseBatchExportArgs, UpdateBatchExportArgs } from './batch-export.inputs.js';
import { BatchExportList, BatchExportRecord, PausedRecord } from './batch-export.record.js';
import { BatchExportService } from './batch-export.service.js';

const service = ({ em, log }: SubgraphContext) => new BatchExportService(em, log);

@Resolver(() => BatchExportRecord)
export class BatchExportResolver {
  @Authorized('batch_export:read')
  @Query(() => BatchExportList, { description: 'Batch exports of an environment, newest first.' })
  batch_exports(@Args() args: ListBatchExportsArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).list(ctx.actor, args);
  }

  @Authorized('batch_export:read')
  @Query(() => BatchExportRecord)
  batch_export(@Args() { project_id, id }: BatchExportArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, project_id, id);
  }

  @Authorized('batch_export:write')
  @Mutation(() => BatchExportRecord, { description: 'Makes a batch export; its first run covers the interval in progress.' })
  create_batch_export(@Args() args: BatchExportSettingsArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).create(ctx.actor, args);
  }

  @Authorized('batch_export:write')
  @Mutation(() => BatchExportRecord, { description: 'Changes the given fields; a destination config is merged into the stored one.' })
  update_batch_export(@Args() args: UpdateBatchExportArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).update(ctx.actor, args);
  }

  @Authorized('batch_export:write')
  @Mutation(() => Boolean, { description: 'Deletes the export with its runs and backfills; a run in progress stops.' })
  async delete_batch_export(@Args() { project_id, id }: BatchExportArgs, @Ctx() ctx: SubgraphContext) {
    await service(ctx).delete(ctx.actor, project_id, id);
    return true;
  }

  @Authorized('batch_export:write')
  @Mutation(() => PausedRecord, { description: 'Stops scheduling (every interval already over still runs); idempotent.' })
  pause_batch_export(@Args() { project_id, id }: BatchExportArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).pause(ctx.actor, project_id, id);
  }

  @Authorized('batch_export:write')
  @Mutation(() => PausedRecord, { description: 'Resumes scheduling from the interval in progress; with `backfill`, exports what was skipped while paused. Idempotent.' })
  unpause_batch_export(@Args() args: UnpauseBatchExportArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).unpause(ctx.actor, args);
  }
}
