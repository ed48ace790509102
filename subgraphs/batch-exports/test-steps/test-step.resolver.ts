import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { INTERNAL } from '../../shared/auth/scopes.js';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { RunTestStepArgs, RunTestStepNewArgs, TestArgs } from './test-step.inputs.js';
import { TestRecord, TestStepRecord } from './test-step.record.js';
import { TestStepService } from './test-step.service.js';

const service = ({ em, log }: SubgraphContext) => new TestStepService(em, log);

/** PostHog's destination tests: internal, never reachable with a personal API key. */
@Resolver(() => TestStepRecord)
export class TestStepResolver {
  @Authorized(INTERNAL)
  @Query(() => TestRecord, { description: 'Internal: the checks of a destination type.' })
  batch_export_test(@Args() args: TestArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).steps(ctx.actor, args);
  }

  @Authorized(INTERNAL)
  @Mutation(() => TestStepRecord, { description: 'Internal: runs one check on the destination of a create request.' })
  run_batch_export_test_step_new(@Args() args: RunTestStepNewArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).runNew(ctx.actor, args);
  }

  @Authorized(INTERNAL)
  @Mutation(() => TestStepRecord, { description: "Internal: runs one check on a stored export's destination, with the request's fields over it." })
  run_batch_export_test_step(@Args() args: RunTestStepArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).runStored(ctx.actor, args);
  }
}
