import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { LastExecutionTimesArgs, RunEndpointArgs } from '../endpoints/endpoint.inputs.js';
import { lastExecutionTimes } from './last-execution.service.js';
import { RunService } from './run.service.js';

const service = ({ em, pubsub, log }: SubgraphContext) => new RunService(em, pubsub, log);

const RUN_DESCRIPTION =
  "Runs the endpoint's query (the latest version unless `version`) and answers PostHog's query result: `results` (rows), `columns`, `types`, `hasMore`, cache and version keys.";

@Resolver()
export class RunResolver {
  @Authorized('endpoint:read')
  @Query(() => JSONScalar, { description: `${RUN_DESCRIPTION} (GET form: \`variables\` as JSON text.)` })
  endpoint_run(@Args() args: RunEndpointArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).run(ctx.actor, args);
  }

  @Authorized('endpoint:read')
  @Mutation(() => JSONScalar, { description: RUN_DESCRIPTION })
  run_endpoint(@Args() args: RunEndpointArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).run(ctx.actor, args);
  }

  @Authorized('endpoint:read')
  @Query(() => JSONScalar, { description: 'When each named endpoint last ran through a personal API key (the past 6 months), in a query-status envelope.' })
  endpoint_last_execution_times(@Args() { project_id, names }: LastExecutionTimesArgs, @Ctx() ctx: SubgraphContext) {
    return lastExecutionTimes(ctx.em, ctx.actor, project_id, names);
  }
}
